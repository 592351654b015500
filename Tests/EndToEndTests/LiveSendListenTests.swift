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

    @Test func falconEyeOverWebSocket() throws {
      let jpeg = Live.temporaryPath(".jpg")
      defer { try? FileManager.default.removeItem(atPath: jpeg) }
      // A minimal JPEG shape: SOI, padding, EOI.
      try Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x11, count: 2000) + [0xFF, 0xD9])
        .write(to: URL(fileURLWithPath: jpeg))
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:\(port)", "--respond", "--secret", "S", "--format", "ndjson", "--duration", "20s"]
      }
      let sender = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/DEV-1", "auth", "--secret", "S", "then", "heartbeat",
        "then", "frame", "--jpeg", jpeg, "--rate", "30hz", "--count", "5", "--format", "ndjson",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 0)

      let heard = Live.received(listener.jsonLines)
      #expect(
        heard.map { $0["message"] as? String } == ["authRequest", "heartbeat"]
          + Array(repeating: "cameraFrame", count: 5))
      let auth = heard.first { $0["message"] as? String == "authRequest" }
      let payload = auth.map(Live.fields)?["payload"] as? [String: Any]
      #expect(payload?["deviceId"] as? String == "DEV-1")
      // pktbench's own token is HMAC(secret, "deviceId:timestamp") for the envelope's timestamp.
      let codes = (auth?["diagnostics"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
      #expect(codes.contains("token-matches-secret"))
      let frames = heard.filter { $0["message"] as? String == "cameraFrame" }
      for frame in frames {
        #expect(frame["error"] is NSNull)
        #expect(frame["transport"] as? String == "websocket")
      }
      // Without --frame-id the frames are numbered, as the app numbers them.
      let frameIds = frames.map { (Live.fields($0)["payload"] as? [String: Any])?["frameId"] as? String }
      #expect(frameIds == ["f-0001", "f-0002", "f-0003", "f-0004", "f-0005"])

      // What the sender heard back: an authResponse with a session id, and a pong.
      let replies = sender.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.filter { $0["direction"] as? String == "received" }
      let response = replies.first { $0["message"] as? String == "authResponse" }
      let inner = response.map(Live.fields)?["payload"] as? [String: Any]
      #expect(inner?["success"] as? Bool == true)
      let sessionId = inner?["sessionId"] as? String ?? ""
      #expect(UUID(uuidString: sessionId) != nil)
      let pong = replies.first { $0["message"] as? String == "heartbeat" }
      #expect((pong.map(Live.fields)?["payload"] as? [String: Any])?["pong"] as? Bool == true)
      #expect(sender.stderr.contains("sent 7 messages"))
    }

    /// --session-ttl: the responder closes an authenticated session with
    /// 1008 when it expires; the sender says so in one line and fails.
    @Test func sessionExpiryClosesWith1008() throws {
      let (listener, port) = try Live.startListener { port in
        [
          "listen", "ws:127.0.0.1:\(port)", "--respond", "--session-ttl", "500ms", "--format", "ndjson",
          "--duration", "20s",
        ]
      }
      let sender = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/TTL", "auth", "--secret", "S", "then", "heartbeat",
        "--rate", "10hz", "--duration", "5s", "-q",
      ])
      listener.signal(SIGINT)
      #expect(listener.finish() == 0)
      #expect(sender.status == 1)
      #expect(sender.stderr.split(separator: "\n").count == 1)
      #expect(sender.stderr.contains("1008"))
      let closes = listener.jsonLines.filter { $0["message"] as? String == "ws.close" }
      #expect(
        closes.contains {
          Live.fields($0)["code"] as? Int == 1008 && Live.fields($0)["reason"] as? String == "session expired"
        })
      // It stopped early: far fewer than the 50 heartbeats of 5 s.
      let heartbeats = Live.received(listener.jsonLines).filter { $0["message"] as? String == "heartbeat" }
      #expect(heartbeats.count < 30)
    }
  }
}
