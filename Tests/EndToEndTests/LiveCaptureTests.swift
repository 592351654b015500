import Foundation
import Testing

/// `capture -i lo` while `send` sends: what it decodes is what was sent, and
/// its pcapng file reads back in tshark and in `pktbench decode`.
extension LiveTests {
  @Suite struct Capture {
    static var canCaptureOnLoopback: Bool { Live.isRoot && Live.hasInterface("lo") }

    @Test(.enabled(if: canCaptureOnLoopback, "needs root and a 'lo' interface; not checked here"))
    func captureOnLoopbackWhileSending() throws {
      let file = Live.temporaryPath(".pcapng")
      defer { try? FileManager.default.removeItem(atPath: file) }
      let count = 15
      // The receiver: without one, loopback answers each datagram with an ICMP error.
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--count", String(count)]
      }
      let capture = try LiveProcess([
        "capture", "-i", "lo", "--filter", "udp port \(port)", "-w", file, "--count", String(count),
        "--format", "ndjson", "--codec", "legctrl", "--duration", "30s",
      ])
      #expect(capture.waitForStderr("capturing on lo"))
      let sender = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "servo", "--us", "1700", "--rate", "50hz", "--count",
        String(count), "-q",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      #expect(listener.finish() == 0)
      #expect(capture.finish() == 0, "\(capture.stderr)")

      let records = capture.jsonLines
      #expect(records.count == count)
      for record in records {
        #expect(record["message"] as? String == "set_servo_ch0")
        #expect(Live.fields(record)["pulse_us"] as? Int == 1700)
        #expect(record["dst"] as? String == "127.0.0.1:\(port)")
      }

      // tshark reads the file we wrote and counts the frames and their payloads itself.
      if let tshark = Pktbench.which("tshark") {
        let read = try Pktbench.runProgram(tshark, ["-r", file, "-T", "fields", "-e", "udp.payload"])
        #expect(read.status == 0, "\(read.stderr)")
        let payloads = read.text.split(separator: "\n")
        #expect(payloads.count == count)
        // docs/protocols.md §2 header 01 03 02 00, then pulse_us LE: python3 -c "print((1700).to_bytes(2,'little').hex())" → a406.
        #expect(payloads.allSatisfy { $0.lowercased() == "01030200a406" })
      }
      // And so does decode, with the same frame numbers.
      let decoded = try Pktbench.run(["decode", file, "--format", "ndjson", "--codec", "legctrl"])
      #expect(decoded.status == 0)
      let decodedRecords = decoded.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }
      #expect(decodedRecords.count == count)
      #expect(decodedRecords.map { $0["frame"] as? Int } == records.map { $0["frame"] as? Int })
    }

    /// tcpdump's hands: `-c N` stops after N messages, and the words after
    /// the options are the BPF expression.
    @Test(.enabled(if: canCaptureOnLoopback, "needs root and a 'lo' interface; not checked here"))
    func countAndTrailingFilterWordsAsTcpdumpTakesThem() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--duration", "30s"]
      }
      defer { listener.signal(SIGTERM) }
      let (other, otherPort) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--duration", "30s"]
      }
      defer { other.signal(SIGTERM) }
      let capture = try LiveProcess([
        "capture", "-i", "lo", "-c", "4", "--format", "ndjson", "--codec", "legctrl", "--duration", "30s",
        "udp", "and", "dst", "port", String(port),
      ])
      #expect(capture.waitForStderr("filter 'udp and dst port \(port)'"))
      // The other port's datagrams go first: the filter must leave them out.
      for target in [otherPort, port] {
        let sender = try Pktbench.run([
          "send", "udp://127.0.0.1:\(target)", "ping", "--rate", "50hz", "--count", "8", "-q",
        ])
        #expect(sender.status == 0, "\(sender.stderr)")
      }
      #expect(capture.finish() == 0, "\(capture.stderr)")
      let records = capture.jsonLines
      #expect(records.count == 4)
      #expect(records.allSatisfy { $0["dst"] as? String == "127.0.0.1:\(port)" })
    }

    @Test(.enabled(if: canCaptureOnLoopback, "needs root and a 'lo' interface"))
    func sigintStopsTheCaptureWithItsSummary() throws {
      let file = Live.temporaryPath(".pcapng")
      defer { try? FileManager.default.removeItem(atPath: file) }
      let capture = try LiveProcess([
        "capture", "-i", "lo", "--filter", "udp port 9", "-w", file, "--stats", "-q",
      ])
      #expect(capture.waitForStderr("capturing on lo"))
      capture.signal(SIGINT)
      #expect(capture.finish(timeout: 10) == 130)
      #expect(capture.stdout.contains("stopped by SIGINT"))
      // An empty capture is still a valid pcapng file: its headers are written at once.
      if let tshark = Pktbench.which("tshark") {
        let read = try Pktbench.runProgram(tshark, ["-r", file])
        #expect(read.status == 0, "\(read.stderr)")
      }
    }

    @Test(.enabled(if: Live.isRoot, "needs root to reach pcap_activate"))
    func unknownInterfaceListsTheOnesThatExist() throws {
      let result = try Pktbench.run(["capture", "-i", "nosuchif0"])
      #expect(result.status != 0)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("no interface named 'nosuchif0'"))
      if Live.hasInterface("lo") { #expect(result.stderr.contains("lo")) }
    }

    /// Without CAP_NET_RAW (dropped with setpriv, as root) the capture says
    /// so in one line and names the capability to grant.
    @Test(.enabled(if: Live.isRoot && Pktbench.which("setpriv") != nil, "needs root and setpriv"))
    func withoutPrivilegeItSaysWhatToDo() throws {
      let result = try Pktbench.runProgram(
        Pktbench.which("setpriv") ?? "setpriv",
        [
          "--inh-caps=-all", "--bounding-set=-net_raw,-net_admin", Pktbench.binary.path, "capture", "-i",
          "lo",
        ])
      #expect(result.status != 0)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("setcap cap_net_raw,cap_net_admin=eip"))
    }

    @Test func listInterfaces() throws {
      let result = try Pktbench.run(["capture", "-D"])
      #expect(result.status == 0)
      if Live.hasInterface("lo") {
        #expect(result.text.split(separator: "\n").contains { $0.hasPrefix("lo") })
      }
    }
  }
}
