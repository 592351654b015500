import Foundation
import PacketCapture

/// One capture file (or stdin) as `decode` and `analyze` read it: btsnoop
/// logs with pktbench's own reader (libpcap does not read them), everything
/// else through libpcap, with an optional BPF filter.
struct CaptureInput {
  var path: String
  var filter: String?
  /// Exit status when the input cannot be read (decode 1, analyze 2).
  var unreadableStatus: Int32

  func read(into pipeline: CapturePipeline) throws -> ReadEnd {
    if path != "-", Self.isBtsnoop(path: path) { return try readBtsnoop(into: pipeline) }
    if Self.isPacketLogger(Self.firstBytes(path, PacketLoggerFile.detectionLength)) {
      return try readPacketLogger(into: pipeline)
    }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: path)
      if let filter { try reader.setFilter(filter) }
    } catch {
      // libpcap's messages often name the file already.
      let text = error.text.contains(path) ? error.text : "\(path): \(error.text)"
      throw CommandFailure(text, status: unreadableStatus)
    }
    reader.onNotice = { pipeline.captureNotice($0) }
    let end = reader.read { pipeline.process($0) }
    pipeline.stats.recordedEnd = PcapngEndTime.read(path: path)
    return end
  }

  private func readBtsnoop(into pipeline: CapturePipeline) throws -> ReadEnd {
    let file: BtsnoopFile
    do {
      file = try BtsnoopFile(path: path)
    } catch {
      throw CommandFailure("\(path): \(error.text)", status: unreadableStatus)
    }
    if filter != nil {
      throw CommandFailure("\(path): --filter (BPF) applies to pcap and pcapng files, not btsnoop logs")
    }
    guard let linkType = BluetoothLinkType.forBtsnoopDatalink(file.datalink) else {
      throw CommandFailure(
        "\(path): btsnoop datalink \(file.datalink) is not decoded; supported: 1001, 1002, 2001",
        status: unreadableStatus)
    }
    let end = file.read { record in
      pipeline.processBluetooth(
        linkType, frame: record.frame, time: record.time, flags: record.flags, data: record.data)
    }
    switch end {
    case .endOfFile: return .endOfFile
    case .damaged(let afterFrame, let byteOffset, let reason):
      return .damaged(afterFrame: afterFrame, byteOffset: byteOffset, reason: reason)
    }
  }

  /// Apple PacketLogger has no magic number: its first record header tells it.
  static func isPacketLogger(_ firstBytes: [UInt8]) -> Bool {
    PacketLoggerFile.byteOrder(ofFirstBytes: firstBytes) != nil
  }

  /// A file's first `count` bytes; for stdin, looked at and left for the reader.
  static func firstBytes(_ path: String, _ count: Int) -> [UInt8] {
    if path == "-" { return StandardInputPeek.peek(count) }
    guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
    defer { try? handle.close() }
    return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
  }

  private func readPacketLogger(into pipeline: CapturePipeline) throws -> ReadEnd {
    let file: PacketLoggerFile
    do {
      if path == "-", let stream = fdopen(0, "rb") {
        file = try PacketLoggerFile(stream: stream, name: path)
      } else {
        file = try PacketLoggerFile(path: path)
      }
    } catch {
      throw CommandFailure("\(path): \(error.text)", status: unreadableStatus)
    }
    if filter != nil {
      throw CommandFailure("\(path): --filter (BPF) applies to pcap and pcapng files, not PacketLogger files")
    }
    return file.read { record in
      pipeline.processBluetooth(
        .packetLogger, frame: record.frame, time: record.time, flags: 0, data: record.data)
    }
  }

  static func isBtsnoop(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let magic = (try? handle.read(upToCount: 8)) ?? Data()
    return magic == Data("btsnoop\0".utf8)
  }
}
