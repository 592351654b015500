import Foundation
import Testing

/// A flow keeps its codec: once probes found LegCtrl on a UDP pair, a
/// damaged frame of that pair is shown as LegCtrl's error at its offset,
/// not as bytes no codec claimed (the damaged frame is the one a field
/// engineer looks for). The capture is written here by Python.
@Suite struct FlowCodecTests {
  @Test func aDamagedFrameOnALegCtrlFlowIsALegCtrlError() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-flow-\(UUID().uuidString).pcap").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    // docs/protocols.md §2: ARM 01 01 00 00, SET_SERVO_CH0 1500 µs 01 03 02 00 DC 05;
    // then one cut a byte short, then one whose version is 0x7f.
    let script = """
      import struct, sys
      def checksum(header):
          s = sum(struct.unpack(">10H", header))
          while s >> 16: s = (s & 0xFFFF) + (s >> 16)
          return ~s & 0xFFFF
      def packet(t, payload, sport, dport):
          udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
          head = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                             bytes([10, 0, 0, 2]), bytes([10, 0, 0, 7]))
          head = head[:10] + struct.pack(">H", checksum(head)) + head[12:]
          frame = b"\\0" * 12 + b"\\x08\\x00" + head + udp
          return struct.pack("<IIII", int(t), int(round((t % 1) * 1e6)), len(frame), len(frame)) + frame
      out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
      frames = ["01010000", "01030200dc05", "01030200dc05", "01030200dc", "7f030200dc05", "01030200dc05"]
      for k, hexed in enumerate(frames):
          out += packet(100 + k * 0.02, bytes.fromhex(hexed), 40000, 9000)
      # The same damaged bytes on another pair, never seen carrying LegCtrl.
      out += packet(101, bytes.fromhex("01030200dc"), 40001, 9001)
      open(sys.argv[1], "wb").write(out)
      """
    let made = try Pktbench.runProgram("/usr/bin/env", ["python3", "-c", script, path])
    #expect(made.status == 0, "\(made.stderr)")
    let result = try Pktbench.run(["decode", path, "--format", "ndjson"])
    let records = try result.text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(records.count == 7)
    func error(_ index: Int) -> [String: Any]? { records[index]["error"] as? [String: Any] }
    #expect(records[3]["codec"] as? String == "legctrl")
    #expect(error(3)?["code"] as? String == "bad-length")
    #expect(records[4]["codec"] as? String == "legctrl")
    #expect(error(4)?["code"] as? String == "bad-version")
    #expect(error(4)?["offset"] as? Int == 0)
    #expect(records[5]["message"] as? String == "set_servo_ch0")
    #expect(records[6]["codec"] is NSNull, "a flow never seen with a codec keeps none")
  }
}
