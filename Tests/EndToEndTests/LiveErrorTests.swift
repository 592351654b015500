import Foundation
import Testing

/// Bad flags, ports and URLs, ports in use, unreachable destinations: one
/// clear line on stderr and a non-zero exit, never a hang or a crash.
extension LiveTests {
  @Suite struct Errors {
    static func expectOneLine(_ arguments: [String], mentions: String) throws {
      let result = try Pktbench.run(arguments)
      #expect(result.status != 0, "\(arguments)")
      let lines = result.stderr.split(separator: "\n")
      #expect(lines.count == 1, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func badListenAddresses() throws {
      try Self.expectOneLine(["listen", "udp:99999"], mentions: "1…65535")
      try Self.expectOneLine(["listen", "tcp:8000"], mentions: "udp or ws")
      try Self.expectOneLine(["listen", "udp:"], mentions: "no port")
      try Self.expectOneLine(["listen", "udp:::1:5005"], mentions: "brackets")
      try Self.expectOneLine(["listen", "udp:5005", "--respond"], mentions: "pktbench emulate")
      try Self.expectOneLine(["listen", "udp:5005", "--codec", "nope"], mentions: "unknown codec")
      try Self.expectOneLine(["listen", "udp:5005", "--count", "0"], mentions: "--count")
      try Self.expectOneLine(["listen", "udp:5005", "--duration", "soon"], mentions: "--duration")
    }

    @Test func badEmulateArguments() throws {
      try Self.expectOneLine(["emulate", "nope", "--listen", "udp:9000"], mentions: "unknown codec")
      try Self.expectOneLine(["emulate", "rider", "--listen", "ws:9000"], mentions: "udp")
      try Self.expectOneLine(["emulate", "rider", "--listen", "udp:9000", "--bogus"], mentions: "takes none")
      try Self.expectOneLine(
        ["emulate", "falconeye", "--listen", "ws:9000", "--auth-timeout", "soon"], mentions: "--auth-timeout")
      try Self.expectOneLine(["send", "udp://127.0.0.1:9", "wait", "soon"], mentions: "wait takes one time")
      try Self.expectOneLine(
        ["send", "udp://127.0.0.1:9", "arm", "then", "expect", "telemetry", "--nope", "1"],
        mentions: "no field --nope")
    }

    @Test func badSendURLsAndMessages() throws {
      try Self.expectOneLine(
        ["send", "http://127.0.0.1:9", "servo", "--us", "1500"], mentions: "udp, ws or wss")
      try Self.expectOneLine(["send", "udp://127.0.0.1", "servo", "--us", "1500"], mentions: "no port")
      try Self.expectOneLine(["send", "udp://127.0.0.1:9"], mentions: "nothing to send")
      try Self.expectOneLine(["send", "udp://127.0.0.1:9", "warp"], mentions: "unknown message")
      try Self.expectOneLine(["send", "udp://127.0.0.1:9", "servo"], mentions: "--us")
      try Self.expectOneLine(["send", "udp://127.0.0.1:9", "servo", "--us", "3000"], mentions: "500…2500")
      try Self.expectOneLine(
        ["send", "udp://127.0.0.1:9", "servo", "--us", "1500", "--rate", "fast"], mentions: "--rate")
      try Self.expectOneLine(
        ["send", "udp://127.0.0.1:9", "servo", "--us", "1500", "then"], mentions: "then")
      try Self.expectOneLine(
        ["send", "udp://host.invalid:9", "servo", "--us", "1500"], mentions: "cannot resolve host")
    }

    @Test func portInUseIsOneLine() throws {
      let (first, port) = try Live.startListener { port in ["listen", "udp:127.0.0.1:\(port)", "-q"] }
      try Self.expectOneLine(["listen", "udp:127.0.0.1:\(port)"], mentions: "already in use")
      first.signal(SIGTERM)
      #expect(first.finish() == 130)
    }

    static var unprivilegedPortStart: Int {
      let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_unprivileged_port_start", encoding: .utf8)
      return Int(text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 1024
    }

    /// As nobody (setpriv, from root), a port below 1024 is refused: one line
    /// that says why. Skipped where the sysctl lets anyone bind low ports.
    @Test(
      .enabled(
        if: Live.isRoot && Pktbench.which("setpriv") != nil && unprivilegedPortStart > 80,
        "needs root, setpriv and privileged low ports"))
    func lowPortWithoutPrivilegeIsOneLine() throws {
      let result = try Pktbench.runProgram(
        Pktbench.which("setpriv") ?? "setpriv",
        [
          "--reuid=65534", "--regid=65534", "--clear-groups", Pktbench.binary.path, "listen",
          "udp:127.0.0.1:80",
        ])
      #expect(result.status != 0)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("permission denied"))
    }

    @Test func webSocketToAClosedPortIsRefused() throws {
      // Find a port nothing listens on: bind a listener, stop it, use its port.
      let (listener, port) = try Live.startListener { port in ["listen", "ws:127.0.0.1:\(port)", "-q"] }
      listener.signal(SIGINT)
      listener.finish()
      try Self.expectOneLine(
        ["send", "ws://127.0.0.1:\(port)/ws/connect/D", "heartbeat"], mentions: "refused")
    }

    @Test func webSocketToTheWrongPathIsOneLine() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "ws:127.0.0.1:\(port)", "--format", "ndjson"]
      }
      try Self.expectOneLine(["send", "ws://127.0.0.1:\(port)/elsewhere", "heartbeat"], mentions: "404")
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(listener.jsonLines.contains { $0["message"] as? String == "http.refused" })
    }

    @Test func udpToAPortNobodyListensOnSaysSoOnceAndFails() throws {
      let (listener, port) = try Live.startListener { port in ["listen", "udp:127.0.0.1:\(port)", "-q"] }
      listener.signal(SIGINT)
      listener.finish()
      let result = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "servo", "--us", "1500", "--rate", "100hz", "--count", "5", "-q",
      ])
      #expect(result.status == 1)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("connection refused"))
      #expect(result.text.contains("sent 5 messages"))
    }

    @Test func sigtermStopsCleanlyWithTheSummary() throws {
      let (listener, _) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "--stats", "-q"]
      }
      listener.signal(SIGTERM)
      #expect(listener.finish(timeout: 10) == 130)
      #expect(listener.stdout.contains("stopped by SIGTERM"))
    }
  }
}
