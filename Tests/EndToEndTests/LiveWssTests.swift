import Foundation
import Testing

/// wss://: `listen`/`emulate` serve TLS with a certificate made here by the
/// openssl CLI, `send wss://` talks to them with --insecure, and without it
/// the self-signed server is refused in one sentence.
extension LiveTests {
  @Suite(.enabled(if: Pktbench.which("openssl") != nil, "needs the openssl CLI")) struct Wss {
    /// A self-signed certificate for 127.0.0.1 and localhost, and its key (PEM).
    static func makeCertificate() throws -> (cert: String, key: String) {
      let cert = Live.temporaryPath("-cert.pem")
      let key = Live.temporaryPath("-key.pem")
      let result = try Pktbench.runProgram(
        Pktbench.which("openssl") ?? "openssl",
        [
          "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=pktbench test",
          "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ])
      guard result.status == 0 else { throw LiveTestError("openssl req failed: \(result.stderr)") }
      return (cert, key)
    }

    @Test func sendWssInsecureTalksToTheEmulatedServer() throws {
      let (cert, key) = try Self.makeCertificate()
      let (server, port) = try Live.startListener(ready: "listening on wss") { port in
        [
          "emulate", "falconeye", "--listen", "ws:127.0.0.1:\(port)", "--cert", cert, "--key", key,
          "--secret", "S", "--format", "ndjson", "--duration", "20s",
        ]
      }
      let sender = try Pktbench.run([
        "send", "wss://127.0.0.1:\(port)/ws/connect/DEV-1", "--insecure", "auth", "--secret", "S", "then",
        "expect", "authResponse", "--within", "5s", "then", "heartbeat", "--format", "ndjson",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      server.signal(SIGINT)
      #expect(server.finish() == 130)
      let events = server.jsonLines.map { $0["event"] as? String ?? "" }
      #expect(events.prefix(3) == ["opened", "authenticated", "pong"], "\(events)")
      let replies = sender.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.filter { $0["direction"] as? String == "received" }
      let response = replies.first { $0["message"] as? String == "authResponse" }
      #expect((response.map(Live.fields)?["payload"] as? [String: Any])?["success"] as? Bool == true)
    }

    @Test func withoutInsecureASelfSignedServerIsRefusedInOneSentence() throws {
      let (cert, key) = try Self.makeCertificate()
      let (listener, port) = try Live.startListener(ready: "listening on wss") { port in
        ["listen", "ws:127.0.0.1:\(port)", "--cert", cert, "--key", key, "-q"]
      }
      let result = try Pktbench.run(["send", "wss://127.0.0.1:\(port)/ws/connect/D", "heartbeat"])
      #expect(result.status == 1)
      let lines = result.stderr.split(separator: "\n")
      #expect(lines.count == 1, "\(result.stderr)")
      #expect(result.stderr.contains("the server's certificate is not trusted"), "\(result.stderr)")
      #expect(result.stderr.contains("use --insecure"))
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      // The server said why the handshake failed, in one line.
      #expect(listener.stderr.contains("TLS handshake failed"), "\(listener.stderr)")
    }

    /// Python's ssl module, not pktbench, checks the server serves the
    /// certificate openssl made: the same SHA-256 fingerprint.
    @Test(.enabled(if: Live.hasPython, "needs python3")) func listenServesTheGivenCertificate() throws {
      let (cert, key) = try Self.makeCertificate()
      let (listener, port) = try Live.startListener(ready: "listening on wss") { port in
        ["listen", "ws:127.0.0.1:\(port)", "--cert", cert, "--key", key, "--format", "ndjson"]
      }
      let fingerprint = try Pktbench.runProgram(
        Pktbench.which("openssl") ?? "openssl", ["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
      let expected =
        fingerprint.text.split(separator: "=").last.map {
          $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            .lowercased()
        } ?? "?"
      let script = #"""
        import hashlib, socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
            with context.wrap_socket(raw) as tls:
                print(hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest())
                tls.sendall(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
                print(tls.recv(4096).split(b"\r\n")[0].decode())
        """#
      let result = try Live.python(script, [String(port)])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.text == "\(expected)\nHTTP/1.1 404 Not Found\n", "\(result.text) vs \(expected)")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
    }

    @Test func badCertificateArgumentsAreOneLine() throws {
      try LiveTests.Errors.expectOneLine(
        ["listen", "ws:127.0.0.1:9", "--cert", "/nonexistent.pem", "--key", "/nonexistent.pem"],
        mentions: "--cert /nonexistent.pem: cannot read a PEM certificate")
      try LiveTests.Errors.expectOneLine(
        ["listen", "ws:127.0.0.1:9", "--cert", "x.pem"], mentions: "--cert and --key go together")
      try LiveTests.Errors.expectOneLine(
        ["send", "ws://127.0.0.1:9/ws/connect/D", "--insecure", "heartbeat"], mentions: "wss:// only")
      try LiveTests.Errors.expectOneLine(
        ["listen", "udp:127.0.0.1:9", "--cert", "c.pem", "--key", "k.pem"],
        mentions: "udp: listener has no TLS")
      try LiveTests.Errors.expectOneLine(
        ["listen", "ws:127.0.0.1:9", "--receive-buffer", "1MB"], mentions: "ws: listener has none")
    }
  }
}
