import Foundation
import Testing

/// `send` → `listen` over loopback for every codec: what arrives is what
/// was sent, in number and in value.
extension LiveTests {
  @Suite struct SendListen {
    @Test func riderDriveOverUDP() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:\(port)", "--count", "12", "--format", "ndjson"]
      }
      let sender = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "drive", "--left", "40", "--right", "-25.5", "--rate", "50hz",
        "--count", "12", "-q",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      #expect(listener.finish() == 0)
      let records = listener.jsonLines
      #expect(records.count == 12)
      for record in records {
        #expect(record["codec"] as? String == "rider")
        #expect(record["message"] as? String == "drive")
        #expect(record["transport"] as? String == "udp")
        #expect(Live.fields(record)["left"] as? Double == 40)
        #expect(Live.fields(record)["right"] as? Double == -25.5)
        #expect(record["arrival"] is String)
      }
      // Every record after a source's first has a gap.
      #expect(records.dropFirst().allSatisfy { $0["gap_ms"] is Double })
    }

    @Test func legCtrlServoOverUDP() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:[::1]:\(port)", "--codec", "legctrl", "--count", "10", "--format", "ndjson"]
      }
      let sender = try Pktbench.run([
        "send", "udp://[::1]:\(port)", "servo", "--us", "1234", "--rate", "50hz", "--count", "10", "-q",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      #expect(listener.finish() == 0)
      let records = listener.jsonLines
      #expect(records.count == 10)
      for record in records {
        #expect(record["message"] as? String == "set_servo_ch0")
        #expect(Live.fields(record)["pulse_us"] as? Int == 1234)
        #expect((record["src"] as? String)?.hasPrefix("[::1]:") == true)
      }
    }

    @Test func rallieCommandOverUDP() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "--codec", "rallie", "--count", "5", "--format", "ndjson"]
      }
      let sender = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "rallie", "--upper", "50", "--lower", "40", "--pitch", "45",
        "--yaw", "30", "--feed", "60", "--start", "--rate", "20hz", "--count", "5", "-q",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      #expect(listener.finish() == 0)
      let records = listener.jsonLines
      #expect(records.count == 5)
      for record in records {
        let fields = Live.fields(record)
        #expect(record["message"] as? String == "command")
        #expect(record["error"] is NSNull)
        #expect(fields["upper_wheel"] as? Int == 50)
        #expect(fields["lower_wheel"] as? Int == 40)
        #expect(fields["pitch"] as? Int == 45)
        #expect(fields["yaw"] as? Int == 30)
        #expect(fields["feed"] as? Int == 60)
        #expect(fields["control"] as? String == "start")
      }
    }

    /// `emulate falconeye` as the Aerie server; `send` as the app.
    @Test func falconEyeOverWebSocket() throws {
      let jpeg = Live.temporaryPath(".jpg")
      defer { try? FileManager.default.removeItem(atPath: jpeg) }
      // A minimal JPEG shape: SOI, padding, EOI.
      try Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x11, count: 2000) + [0xFF, 0xD9])
        .write(to: URL(fileURLWithPath: jpeg))
      let (server, port) = try Live.startListener { port in
        [
          "emulate", "falconeye", "--listen", "ws:\(port)", "--secret", "S", "--format", "ndjson",
          "--duration", "20s",
        ]
      }
      let sender = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/DEV-1", "auth", "--secret", "S", "then", "heartbeat",
        "then", "frame", "--jpeg", jpeg, "--rate", "30hz", "--count", "5", "--format", "ndjson",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      server.signal(SIGINT)
      #expect(server.finish() == 130)

      // What the server did, as its timeline says.
      let events = server.jsonLines.map { $0["event"] as? String ?? "" }
      #expect(
        events == ["opened", "authenticated", "pong"] + Array(repeating: "frame_accepted", count: 5) + [
          "closed"
        ],
        "\(events)")
      let authenticated = server.jsonLines.first { $0["event"] as? String == "authenticated" }
      // pktbench's own token is HMAC(secret, "deviceId:timestamp") for the envelope's timestamp.
      #expect((authenticated?["text"] as? String)?.contains("HMAC-SHA256 of \"DEV-1:") == true)
      let sessionId = (authenticated?["state"] as? [String: Any])?["session_id"] as? String ?? ""
      #expect(UUID(uuidString: sessionId) != nil)

      // What the sender heard back: an authResponse with that session id, and a pong.
      let replies = sender.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.filter { $0["direction"] as? String == "received" }
      let response = replies.first { $0["message"] as? String == "authResponse" }
      let inner = response.map(Live.fields)?["payload"] as? [String: Any]
      #expect(inner?["success"] as? Bool == true)
      #expect(inner?["sessionId"] as? String == sessionId)
      let pong = replies.first { $0["message"] as? String == "heartbeat" }
      #expect((pong.map(Live.fields)?["payload"] as? [String: Any])?["pong"] as? Bool == true)
      #expect(sender.stderr.contains("sent 7 messages"))
    }

    /// A camera frame before any authRequest is answered with an
    /// authResponse whose success is false (PROTOCOLS' notAuthenticated):
    /// the unmet expectation names the field it looked at and its value,
    /// not the envelope's first members.
    @Test func anUnmetExpectationShowsTheFieldItLookedAt() throws {
      let (server, port) = try Live.startListener { port in
        ["emulate", "falconeye", "--listen", "ws:127.0.0.1:\(port)", "--duration", "20s"]
      }
      let jpeg = Live.temporaryPath(".jpg")
      defer { try? FileManager.default.removeItem(atPath: jpeg) }
      try Data([0xFF, 0xD8, 0x00, 0x01, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: jpeg))
      let result = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/D", "frame", "--jpeg", jpeg, "then", "expect",
        "authResponse",
        "--success", "true", "--within", "1s", "-q",
      ])
      #expect(result.status == 1)
      #expect(
        result.stderr
          == "pktbench: expect authResponse success=true within 1s: not met; got authResponse success=false\n",
        "\(result.stderr)")
      server.signal(SIGINT)
      #expect(server.finish() == 130)
    }

    /// The emulated server's auth race (--aerie-bugs): an authRequest right
    /// after the 101 is dropped, so `send … expect authResponse` fails with
    /// one line and exit 1; sent after a wait, it passes.
    @Test func sendExpectPassesAndFailsAgainstTheEmulatedServer() throws {
      let (server, port) = try Live.startListener { port in
        [
          "emulate", "falconeye", "--listen", "ws:\(port)", "--aerie-bugs", "--format", "ndjson",
          "--duration", "20s",
        ]
      }
      let url = "ws://127.0.0.1:\(port)/ws/connect/RACE"
      let early = try Pktbench.run([
        "send", url, "auth", "--secret", "S", "then", "expect", "authResponse", "--success", "true",
        "--within",
        "1s", "-q",
      ])
      #expect(early.status == 1)
      #expect(early.stderr.split(separator: "\n").count == 1, "\(early.stderr)")
      #expect(early.stderr.contains("expect authResponse success=true within 1s: not met"))
      let late = try Pktbench.run([
        "send", url, "wait", "300ms", "then", "auth", "--secret", "S", "then", "expect", "authResponse",
        "--success", "true", "--within", "2s", "-q",
      ])
      #expect(late.status == 0, "\(late.stderr)")
      server.signal(SIGINT)
      #expect(server.finish() == 130)
      let events = server.jsonLines.map { $0["event"] as? String ?? "" }
      #expect(events.contains("dropped") && events.contains("authenticated"), "\(events)")
    }

    /// --session-ttl: the emulated server's session expires as the real
    /// one's does (it is dropped from its store; the socket stays open and
    /// heartbeats are still answered), so the sender goes on.
    @Test func sessionExpiryIsAnEventAndTheSocketStaysOpen() throws {
      let (server, port) = try Live.startListener { port in
        [
          "emulate", "falconeye", "--listen", "ws:127.0.0.1:\(port)", "--session-ttl", "500ms", "--format",
          "ndjson", "--duration", "20s",
        ]
      }
      let sender = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/TTL", "auth", "--secret", "S", "then", "heartbeat",
        "--rate", "10hz", "--duration", "1.5s", "-q",
      ])
      server.signal(SIGINT)
      #expect(server.finish() == 130)
      #expect(sender.status == 0, "\(sender.stderr)")
      let events = server.jsonLines
      let authenticated = try #require(events.first { $0["event"] as? String == "authenticated" })
      let expired = try #require(events.first { $0["event"] as? String == "expired" })
      let after = (expired["time"] as? Double ?? 0) - (authenticated["time"] as? Double ?? 0)
      #expect(after >= 0.5, "expired \(after) s after the auth")
      #expect(!events.contains { ($0["event"] as? String ?? "").hasPrefix("closed_") })
      let pongsAfter = events.filter {
        $0["event"] as? String == "pong" && ($0["time"] as? Double ?? 0) > (expired["time"] as? Double ?? 0)
      }
      #expect(!pongsAfter.isEmpty, "heartbeats are still answered")
    }
  }
}
