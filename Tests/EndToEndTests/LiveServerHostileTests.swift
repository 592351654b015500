import Foundation
import Testing

/// The WebSocket servers (`listen ws:`/`wss:`, `emulate falconeye`)
/// against hostile clients (issue 34), over raw sockets from
/// Tests/Fixtures/live/ws_hostile.py: floods that read nothing are not
/// read either (back-pressure) and stay far under 150 MB; silent TLS
/// clients, idle clients and half-sent frames are closed; clients past
/// --max-connections are refused with a line; close and text frames that
/// break RFC 6455 get 1002 and 1007; a signal stops a listener whose
/// stdout nobody reads.
extension LiveTests {
  @Suite(.enabled(if: Live.hasPython, "needs python3")) struct ServerHostile {
    static let script = Pktbench.root.appendingPathComponent("Tests/Fixtures/live/ws_hostile.py").path

    /// Runs a hostile client; its JSON line.
    static func client(_ mode: String, _ port: Int, _ arguments: [String] = [], timeout: TimeInterval = 120)
      throws
      -> [String: Any]
    {
      let python = try #require(Pktbench.which("python3"))
      let result = try Pktbench.runProgram(
        python, [script, mode, String(port)] + arguments, timeout: timeout)
      #expect(result.status == 0, "\(mode): \(result.stderr)")
      return (try? JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
    }

    static func lines(_ text: String, containing fragment: String) -> [Substring] {
      text.split(separator: "\n").filter { $0.contains(fragment) }
    }

    // MARK: Floods that read nothing

    @Test func aPingFloodThatReadsNoPongsIsNotReadEither() throws {
      let (listener, port) = try Live.startListener { port in ["listen", "ws:127.0.0.1:\(port)", "-q"] }
      let flood = try Self.client("ping-flood", port, ["300"])
      // The listener stopped reading once its pongs were not taken: the
      // client's sends stalled long before 300 MB.
      #expect(flood["stalled"] as? Bool == true, "\(flood)")
      #expect((flood["sent"] as? Int ?? .max) < 100_000_000, "\(flood)")
      let peak = try #require(listener.peakResidentKiB)
      #expect(peak < 150 * 1024, "peak RSS \(peak) KiB")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
    }

    @Test func aHeartbeatFloodToTheEmulatedServerStaysBounded() throws {
      let (server, port) = try Live.startListener { port in
        ["emulate", "falconeye", "--listen", "ws:127.0.0.1:\(port)"]
      }
      let flood = try Self.client("heartbeat-flood", port, ["100"])
      #expect(flood["stalled"] as? Bool == true, "\(flood)")
      let peak = try #require(server.peakResidentKiB)
      #expect(peak < 150 * 1024, "peak RSS \(peak) KiB")
      server.signal(SIGTERM)
      #expect(server.finish() == 130)
    }

    // MARK: Clients that hold sockets

    @Test(.enabled(if: Pktbench.which("openssl") != nil, "needs the openssl CLI"))
    func silentTLSClientsAreClosedAtTheHeadTimeout() throws {
      let (cert, key) = try Wss.makeCertificate()
      defer {
        try? FileManager.default.removeItem(atPath: cert)
        try? FileManager.default.removeItem(atPath: key)
      }
      let (listener, port) = try Live.startListener { port in
        [
          "listen", "ws:127.0.0.1:\(port)", "-q", "--stats", "--cert", cert, "--key", key, "--head-timeout",
          "1s",
        ]
      }
      let before = try #require(listener.openDescriptors)
      let silent = try Self.client("silent", port, ["100", "4"])
      #expect(silent["closed"] as? Int == 100, "\(silent)")
      #expect(try #require(listener.openDescriptors(atMost: before)) <= before)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      let cuts = Self.lines(
        listener.stderr, containing: "its TLS handshake was not done after 1s (--head-timeout)")
      #expect(cuts.count == 100, "\(listener.stderr.prefix(500))")
      #expect(
        listener.stdout.contains(
          "connections cut: 100 (100 with no whole request head within --head-timeout 1s)"))
    }

    @Test func idleClientsAndAFrameNeverFinishedAreClosedAtTheIdleTimeout() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats", "--idle-timeout", "1s"]
      }
      // The first of the three has a 1 MB frame begun and never finished.
      let idle = try Self.client("idle", port, ["3", "6"])
      #expect(idle["codes"] as? [Int] == [1001, 1001, 1001], "\(idle)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      let cuts = Self.lines(
        listener.stderr, containing: "no whole frame from it in 1s (--idle-timeout); closed with 1001")
      #expect(cuts.count == 3, "\(listener.stderr)")
      #expect(
        listener.stdout.contains("connections cut: 3 (3 idle for --idle-timeout 1s)"), "\(listener.stdout)")
    }

    @Test func clientsPastMaxConnectionsAreRefusedWithALine() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats", "--max-connections", "5"]
      }
      let outcome = try Self.client("connect", port, ["8"])
      #expect(outcome["upgraded"] as? Int == 5, "\(outcome)")
      #expect(outcome["refused"] as? Int == 3, "\(outcome)")
      #expect(outcome["hanging"] as? Int == 0, "\(outcome)")
      #expect(outcome["statuses"] as? [String] == ["HTTP/1.1 503 Service Unavailable"])
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(
        Self.lines(listener.stderr, containing: "refused: 5 connections are open (--max-connections 5)").count
          == 1)
      #expect(
        listener.stderr.contains("ws: refused 2 more in a second (--max-connections 5)"), "\(listener.stderr)"
      )
      #expect(listener.stdout.contains("connections refused: 3 (--max-connections 5 were open)"))
    }

    /// The default is the open-file limit less 64: under `ulimit -n 128`,
    /// 64 connections, and the next client is refused, not left hanging.
    @Test func theDefaultMaxConnectionsFitsTheOpenFileLimit() throws {
      let shell = try #require(Pktbench.which("bash"))
      let (listener, port) = try Live.startListener(program: shell) { port in
        ["-c", "ulimit -n 128 && exec \"$0\" listen ws:127.0.0.1:\(port) -q --stats", Pktbench.binary.path]
      }
      let outcome = try Self.client("connect", port, ["80"])
      #expect(outcome["upgraded"] as? Int == 64, "\(outcome)")
      #expect(outcome["refused"] as? Int == 16, "\(outcome)")
      #expect(outcome["hanging"] as? Int == 0, "\(outcome)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(
        listener.stderr.contains("refused: 64 connections are open (--max-connections 64)"),
        "\(listener.stderr)")
    }

    // MARK: RFC 6455

    @Test func closeAndTextFramesThatBreakRFC6455GetTheirCodes() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats"]
      }
      // A 1-byte close body, a code that may not be sent (1005), a reason
      // that is not UTF-8; a text message that is not UTF-8, whole or split
      // between fragments; then a valid close and a valid split message.
      #expect(try Self.client("close-payload", port, ["03"])["close"] as? Int == 1002)
      #expect(try Self.client("close-payload", port, ["03ed"])["close"] as? Int == 1002)
      #expect(try Self.client("close-payload", port, ["03e8ff"])["close"] as? Int == 1007)
      #expect(try Self.client("text", port, ["c328"])["close"] as? Int == 1007)
      #expect(try Self.client("fragments", port, ["68c3", "28"])["close"] as? Int == 1007)
      #expect(try Self.client("close-payload", port, ["03e8"])["close"] as? Int == 1000)
      #expect(try Self.client("fragments", port, ["68c3", "a9"])["close"] as? String == "open")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(Self.lines(listener.stderr, containing: "closed with 1002").count == 2, "\(listener.stderr)")
      #expect(Self.lines(listener.stderr, containing: "closed with 1007").count == 3, "\(listener.stderr)")
      #expect(listener.stderr.contains("a close frame with a 1-byte body"))
      #expect(listener.stderr.contains("close code 1005 is reserved"))
      #expect(listener.stderr.contains("a close reason that is not UTF-8"))
      #expect(listener.stderr.contains("a text message that is not UTF-8"))
      #expect(
        listener.stdout.contains(
          "connections cut: 5 (2 for a protocol error (closed with 1002), 3 for text that is not UTF-8 (closed with 1007))"
        ), "\(listener.stdout)")
    }

    // MARK: Signals

    @Test func sigtermStopsAListenerWhoseStdoutNobodyReads() throws {
      let python = try #require(Pktbench.which("python3"))
      let script = Pktbench.root.appendingPathComponent("Tests/Fixtures/live/stuck_stdout.py").path
      let result = try Pktbench.runProgram(
        python, [script, Pktbench.binary.path, String(Live.randomPort())], timeout: 90)
      #expect(result.status == 0, "\(result.stderr)")
      let outcome = (try? JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
      #expect(outcome["exit"] as? Int == 130, "\(outcome)")
      #expect((outcome["seconds"] as? Double ?? 99) < 15, "\(outcome)")
      #expect(
        (outcome["stderr"] as? String ?? "").contains(
          "SIGTERM: still stopping after 5s (is the output being read?); leaving without the rest"),
        "\(outcome)")
    }
  }
}
