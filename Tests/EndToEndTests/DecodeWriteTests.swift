import Foundation
import Testing

/// `decode -w`: the file written is read back by tshark, and holds exactly
/// the records tshark itself says carried the messages kept, segments and
/// fragments of reassembled messages included. Records are matched by
/// their times (a pcapng keeps no frame numbers), which tshark reads from
/// both files.
@Suite struct DecodeWriteTests {
  static func tshark(_ arguments: [String]) throws -> [String] {
    guard let tshark = Pktbench.which("tshark") else { return [] }
    let result = try Pktbench.runProgram(tshark, arguments)
    #expect(result.status == 0, "tshark \(arguments): \(result.stderr)")
    return result.text.split(separator: "\n").map(String.init)
  }

  /// The epoch times tshark reads from `path`, for the frames in `frames`
  /// (all when nil), to the microsecond (tshark reads btsnoop times through
  /// a Double: 1795320000.902856960 for .902857).
  static func times(_ path: String, frames: Set<Int>? = nil) throws -> [Int64] {
    try tshark(["-r", path, "-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch"]).compactMap {
      let parts = $0.split(separator: "\t")
      guard parts.count == 2, let frame = Int(parts[0]) else { return nil }
      if let frames, !frames.contains(frame) { return nil }
      return Double(parts[1]).map { Int64(($0 * 1e6).rounded()) }
    }
  }

  static func write(_ arguments: [String]) throws -> String {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-w-\(UUID()).pcapng")
      .path
    let result = try Pktbench.run(["decode"] + arguments + ["-w", out])
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    #expect(result.stdout.isEmpty, "-w without -P writes no messages to stdout")
    return out
  }

  @Test func everyMessageOfAUDPCaptureIsOneRecord() throws {
    guard Pktbench.which("tshark") != nil else { return }
    let out = try Self.write(["Captures/rider-20hz.pcap"])
    defer { try? FileManager.default.removeItem(atPath: out) }
    let udp = try Self.tshark([
      "-r", "Captures/rider-20hz.pcap", "-Y", "udp", "-T", "fields", "-e", "frame.number",
    ])
    let written = try Self.times(out)
    #expect(written.count == udp.count && !udp.isEmpty)
    #expect(written == (try Self.times("Captures/rider-20hz.pcap", frames: Set(udp.compactMap { Int($0) }))))
  }

  @Test func displayFilterAndBPFFilterNarrowTheRecords() throws {
    guard Pktbench.which("tshark") != nil else { return }
    // LegCtrl frames from the controller to the device (port 9000), of one message type.
    let out = try Self.write([
      "Captures/legctrl-udp.pcap", "--filter", "udp dst port 9000", "-Y",
      "legctrl.header.msg_type == \"PING\"",
    ])
    defer { try? FileManager.default.removeItem(atPath: out) }
    // Independently: tshark picks the same frames by bytes (LegCtrl's
    // msg_type, PING 0x04, is the second byte of the UDP payload: docs/protocols.md).
    let frames = try Self.tshark([
      "-r", "Captures/legctrl-udp.pcap", "-Y", "udp.dstport == 9000 and udp.payload[1] == 0x04",
      "-T", "fields", "-e", "frame.number",
    ])
    #expect(!frames.isEmpty)
    #expect(
      try Self.times(out)
        == (try Self.times("Captures/legctrl-udp.pcap", frames: Set(frames.compactMap { Int($0) }))))
  }

  @Test func aWebSocketMessageBringsEverySegmentItCameIn() throws {
    guard Pktbench.which("tshark") != nil else { return }
    for capture in ["Captures/falconeye-ws.pcap", "Captures/falconeye-ws-deflate.pcap"] {
      let out = try Self.write([capture, "-Y", "message == \"cameraFrame\""])
      defer { try? FileManager.default.removeItem(atPath: out) }
      // tshark's own reassembly: the segments of every WebSocket frame the
      // app sent with a 64-bit length (the camera frames; nothing else it
      // sends passes 64 KB) or as a continuation (the camera frames some
      // apps fragment).
      var frames = Set<Int>()
      for line in try Self.tshark([
        "-r", capture, "-Y",
        "websocket and tcp.dstport == 8000 and (websocket.payload_length == 127 or websocket.opcode == 0)",
        "-T", "fields", "-e", "frame.number", "-e", "tcp.segment", "-E", "occurrence=a", "-E", "aggregator=,",
      ]) {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard let frame = Int(parts[0]) else { continue }
        let segments = parts.count > 1 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
        frames.formUnion(segments.isEmpty ? [frame] : segments)
      }
      #expect(frames.count > 10, "\(capture): camera frames span many segments")
      #expect(try Self.times(out) == (try Self.times(capture, frames: frames)), "\(capture)")
    }
  }

  @Test func anATTValueBringsEveryACLFragment() throws {
    guard Pktbench.which("tshark") != nil else { return }
    // Frames 35 and 58 start the two ATT values of this log that L2CAP
    // split over two ACL packets.
    for capture in ["Captures/ble/legctrl-session.btsnoop", "Captures/ble/legctrl-session.pcapng"] {
      let out = try Self.write([capture, "-Y", "frame == 35 or frame == 58"])
      defer { try? FileManager.default.removeItem(atPath: out) }
      let continuations = try Self.tshark([
        "-r", capture, "-Y", "bthci_acl.continuation_to == 35 or bthci_acl.continuation_to == 58", "-T",
        "fields", "-e", "frame.number",
      ]).compactMap { Int($0) }
      #expect(continuations.count == 2)
      let written = try Self.times(out)
      #expect(written == (try Self.times(capture, frames: Set([35, 58] + continuations))), "\(capture)")
      // The btsnoop log becomes H4 with its direction header, as the pcapng of the same session is.
      let protocols = try Self.tshark(["-r", out, "-T", "fields", "-e", "frame.protocols"])
      #expect(protocols.count == 4 && protocols.allSatisfy { $0.hasPrefix("bluetooth:hci_h4:bthci_acl") })
    }
  }

  @Test func nanosecondTimesAreKeptToTheNanosecond() throws {
    guard Pktbench.which("tshark") != nil else { return }
    let capture = "Captures/field-session.pcapng"
    let out = try Self.write([capture, "udp", "port", "5005"])
    defer { try? FileManager.default.removeItem(atPath: out) }
    let original = try Self.tshark([
      "-r", capture, "-Y", "udp.port == 5005", "-T", "fields", "-e", "frame.time_epoch",
    ])
    let written = try Self.tshark(["-r", out, "-T", "fields", "-e", "frame.time_epoch"])
    #expect(written.count == 42 && written == original)
    #expect(original.contains { !$0.hasSuffix("000") }, "the capture has nanoseconds to keep")
  }

  @Test func stdinAndHexAreRefused() throws {
    let stdin = try Pktbench.run(["decode", "-", "-w", "/tmp/never.pcapng"], stdin: [])
    #expect(stdin.status == 64)
    #expect(stdin.stderr.contains("-w"))
  }
}
