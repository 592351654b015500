import Foundation
import Testing

/// The WebSocket server against hostile clients, spoken to over raw TCP by
/// Python (no WebSocket library, so the bytes on the wire are exactly the
/// test's): RFC 6455 violations get close 1002, a slow request head and a
/// flood of partial frames are cut, each with one line on stderr and a
/// count in the summary.
extension LiveTests {
  @Suite(.enabled(if: Live.hasPython, "needs python3")) struct WebSocketGuards {
    /// Raw client: `python3 -c SCRIPT PORT MODE`; prints what came back.
    static let client = #"""
      import base64, os, socket, struct, sys, time
      port, mode = int(sys.argv[1]), sys.argv[2]

      def connect():
          s = socket.create_connection(("127.0.0.1", port), timeout=15)
          return s

      def upgrade(s):
          key = base64.b64encode(os.urandom(16)).decode()
          s.sendall(("GET /ws/connect/D HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: %s\r\n\r\n" % key).encode())
          head = b""
          while b"\r\n\r\n" not in head:
              chunk = s.recv(1)
              if not chunk:
                  raise SystemExit("closed during the handshake")
              head += chunk
          assert head.startswith(b"HTTP/1.1 101"), head

      sys.path.insert(0, "Tests/Fixtures/live")
      from ws_hostile import masked  # a masked client frame (RFC 6455 §5.2)

      def close_code(s):
          # The server's first frame back: a close (0x88) with its code.
          data = b""
          while len(data) < 4:
              chunk = s.recv(4 - len(data))
              if not chunk:
                  return "eof"
              data += chunk
          assert data[0] == 0x88, data
          return struct.unpack("!H", data[2:4])[0]

      if mode in ("unmasked", "rsv1", "opcode3", "continuation"):
          s = connect()
          upgrade(s)
          frame = {"unmasked": bytes([0x81, 2]) + b"hi",
                   "rsv1": masked(0xC1, b"hi"),
                   "opcode3": masked(0x83, b"hi"),
                   "continuation": masked(0x80, b"hi")}[mode]
          s.sendall(frame)
          print("close", close_code(s))
      elif mode == "slowhead":
          s = connect()
          start = time.monotonic()
          answer = b""
          for b in b"GET /ws/connect/D HTTP/1.1\r\nHost: x\r\n":
              try:
                  s.sendall(bytes([b]))
                  chunk = s.recv(4096, socket.MSG_DONTWAIT)
                  answer += chunk
                  if not chunk:
                      break
              except BlockingIOError:
                  pass
              except OSError:
                  break
              time.sleep(0.2)
          s.settimeout(5)
          try:
              while True:
                  chunk = s.recv(4096)
                  if not chunk:
                      break
                  answer += chunk
          except OSError:
              pass
          print("answer", answer.split(b"\r\n")[0].decode(), "after %.1f" % (time.monotonic() - start))
      elif mode == "flood":
          # Two connections hold partial frames: 700 KB of a 800 KB frame,
          # then 500 KB of another. Past 1 MB the larger (the first) is cut.
          first, second = connect(), connect()
          upgrade(first)
          upgrade(second)
          big = masked(0x82, os.urandom(800_000))
          first.sendall(big[:700_000])
          time.sleep(0.5)
          second.sendall(big[:500_000])
          print("first", close_code(first))
          # The second still works: the rest of its frame, then a close of its own.
          second.sendall(big[500_000:])
          second.sendall(masked(0x88, struct.pack("!H", 1000)))
          print("second", close_code(second))
      """#

    static func run(_ mode: String, port: Int) throws -> String {
      let result = try Live.python(client, [String(port), mode], timeout: 40)
      #expect(result.status == 0, "\(mode): \(result.stderr)")
      return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func protocolViolationsGetClose1002() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats"]
      }
      #expect(try Self.run("unmasked", port: port) == "close 1002")
      #expect(try Self.run("rsv1", port: port) == "close 1002")
      #expect(try Self.run("opcode3", port: port) == "close 1002")
      #expect(try Self.run("continuation", port: port) == "close 1002")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      let cuts = listener.stderr.split(separator: "\n").filter { $0.contains("connection cut") }
      #expect(cuts.count == 4, "\(listener.stderr)")
      #expect(cuts.contains { $0.contains("an unmasked frame") && $0.hasSuffix("closed with 1002") })
      #expect(cuts.contains { $0.contains("RSV1 set with no extension negotiated") })
      #expect(cuts.contains { $0.contains("reserved opcode 0x3") })
      #expect(cuts.contains { $0.contains("a continuation frame with no message begun") })
      #expect(listener.stdout.contains("connections cut: 4 (4 for a protocol error (closed with 1002))"))
    }

    @Test func aSlowRequestHeadIsCutAfterTheTimeout() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats", "--head-timeout", "1s"]
      }
      let answer = try Self.run("slowhead", port: port)
      #expect(answer.hasPrefix("answer HTTP/1.1 408 Request Timeout"), "\(answer)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(
        listener.stderr.contains(
          "connection cut: its HTTP request head was not whole after 1s (--head-timeout)"),
        "\(listener.stderr)")
      #expect(
        listener.stdout.contains("connections cut: 1 (1 with no whole request head within --head-timeout 1s)")
      )
    }

    @Test func partialFramesPastTheBudgetCutTheLargestHolder() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "-q", "--stats", "--max-buffered", "1MB"]
      }
      let answer = try Self.run("flood", port: port)
      #expect(answer == "first 1013\nsecond 1000", "\(answer)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      let cuts = listener.stderr.split(separator: "\n").filter { $0.contains("connection cut") }
      #expect(cuts.count == 1, "\(listener.stderr)")
      #expect(cuts.first?.contains("(--max-buffered 1MB); closed with 1013") == true, "\(listener.stderr)")
      #expect(
        listener.stdout.contains("connections cut: 1 (1 over --max-buffered 1MB)"), "\(listener.stdout)")
    }
  }
}
