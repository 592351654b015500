import Foundation
import Testing

/// A capture that records when it ended (a pcapng Interface Statistics
/// Block's isb_endtime) lets `analyze` tell a stream that stopped inside
/// it from one the capture cut off. The files are written here by Python
/// from the pcapng layout, not by pktbench.
@Suite struct CaptureEndTests {
  /// 20 Rider datagrams at 20 Hz driving 40/40 from t = 1000 s; with
  /// `isbEnd`, an ISB whose isb_endtime is that many seconds after the last.
  static func write(isbEnd: Double?) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-end-\(UUID().uuidString).pcapng").path
    let script = """
      import struct, sys
      def block(kind, body):
          body += b"\\0" * ((4 - len(body) % 4) % 4)
          return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
      out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
      out += block(1, struct.pack("<HHI", 228, 0, 65535) + struct.pack("<HHB3x", 9, 1, 9) + b"\\0" * 4)
      def ip_udp(payload):
          udp = struct.pack(">HHHH", 40000, 5005, 8 + len(payload), 0) + payload
          return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                             bytes([10, 0, 0, 2]), bytes([10, 0, 0, 7])) + udp
      last = 0
      for k in range(20):
          t = 1000.0 + k * 0.05
          data = ip_udp(b'{"left":40,"right":40,"timestamp":%.3f}' % t)
          ns = int(round(t * 1e9)); last = ns
          out += block(6, struct.pack("<IIIII", 0, ns >> 32, ns & 0xFFFFFFFF, len(data), len(data)) + data)
      end = sys.argv[2]
      if end != "none":
          e = last + int(float(end) * 1e9)
          opts = struct.pack("<HHII", 3, 8, e >> 32, e & 0xFFFFFFFF) + b"\\0" * 4
          out += block(5, struct.pack("<III", 0, e >> 32, e & 0xFFFFFFFF) + opts)
      open(sys.argv[1], "wb").write(out)
      """
    let result = try Pktbench.runProgram(
      "/usr/bin/env", ["python3", "-c", script, path, isbEnd.map { String($0) } ?? "none"])
    #expect(result.status == 0, "\(result.stderr)")
    return path
  }

  @Test func aStreamThatStopsBeforeTheRecordedEndStoppedTheRobot() throws {
    let path = try Self.write(isbEnd: 3)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    let ended = try #require(report.findings("rider.ended-moving").first)
    #expect(ended["severity"] as? String == "warning")
    #expect(ended["frame"] as? Int == 20)
    #expect(Analyze.details(ended)["certain"] as? Bool == true)
    let stops = try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }
    #expect(stops.count == 1)
    #expect(stops.first?.certain == true)
  }

  @Test func withoutARecordedEndTheStreamMayHaveGoneOn() throws {
    let path = try Self.write(isbEnd: nil)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(report.findings("rider.ended-moving").isEmpty)
    #expect(report.serious.isEmpty, "\(report.serious)")
    let stops = try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }
    #expect(stops.map(\.certain) == [false])
  }

  /// An end recorded right after the last datagram: the capture stopped
  /// while the app was still sending, nothing to report.
  @Test func aCaptureStoppedMidStreamIsNotAStop() throws {
    let path = try Self.write(isbEnd: 0.03)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(report.serious.isEmpty, "\(report.serious)")
    #expect(try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }.isEmpty)
  }
}
