import Foundation
import PacketCapture
import PacketKit

/// One capture file (or stdin) as `decode` and `analyze` read it: btsnoop
/// logs with pktbench's own reader (libpcap does not read them), everything
/// else through libpcap, with an optional BPF filter.
///
/// Reading stops early, after a whole record, when SIGINT or SIGTERM
/// arrives (`ReadInterruption`); `pipeline.stats.interrupted` then says so.
struct CaptureInput {
  var path: String
  var filter: String?
  /// Exit status when the input cannot be read.
  var unreadableStatus: Int32 = ExitStatus.unreadable
  /// Standard input already looked at (`decode --codec X -` looks first,
  /// to tell a capture from a payload); nil: looked at here.
  var standardInput: StandardInput?

  func read(into pipeline: CapturePipeline) throws -> ReadEnd {
    if path == "-" { return try readStandardInput(into: pipeline) }
    if Self.isBtsnoop(path: path) {
      let file: BtsnoopFile
      do {
        file = try BtsnoopFile(path: path)
      } catch {
        throw CommandFailure("\(path): \(error.text)", status: unreadableStatus)
      }
      return try readBtsnoop(file, into: pipeline)
    }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: path)
    } catch {
      // libpcap's messages often name the file already.
      let text = error.text.contains(path) ? error.text : "\(path): \(error.text)"
      throw CommandFailure(text, status: unreadableStatus)
    }
    let end = try readPcap(reader, into: pipeline)
    pipeline.stats.recordedEnd = PcapngEndTime.read(path: path)
    return end
  }

  /// stdin: a btsnoop log (Android's, piped from adb) or pcap/pcapng, told
  /// apart by their first bytes, as a file's are.
  private func readStandardInput(into pipeline: CapturePipeline) throws -> ReadEnd {
    var input: StandardInput
    if let standardInput {
      input = standardInput
    } else {
      do {
        input = try StandardInput()
      } catch {
        // Ctrl-C before the first bytes came: nothing read, nothing to say.
        if ReadInterruption.shared.isSet { return ended(.endOfFile, pipeline: pipeline) }
        throw CommandFailure(error.text, status: unreadableStatus)
      }
    }
    switch input.format {
    case .btsnoop?:
      let file: BtsnoopFile
      do {
        file = try BtsnoopFile(standardInput: input)
      } catch {
        throw CommandFailure("-: \(error.text)", status: unreadableStatus)
      }
      return try readBtsnoop(file, into: pipeline)
    case .pcap?, .pcapng?:
      let reader: PcapFileReader
      do {
        reader = try PcapFileReader(standardInput: input)
      } catch {
        throw CommandFailure("-: \(error.text)", status: unreadableStatus)
      }
      return try readPcap(reader, into: pipeline)
    case nil:
      let what =
        input.prefix.isEmpty
        ? "standard input is empty"
        : "standard input is not a pcap, pcapng or btsnoop capture (it starts with "
          + "\(Hex.spaced(input.prefix.prefix(4))))"
      throw CommandFailure(
        what + "; to decode it as one payload, name its codec with --codec", status: unreadableStatus)
    }
  }

  private func readPcap(_ reader: PcapFileReader, into pipeline: CapturePipeline) throws -> ReadEnd {
    if let filter {
      do {
        try reader.setFilter(filter)
      } catch {
        // A filter that does not compile is the command line's fault.
        throw CommandFailure("--filter: \(error.text)", status: ExitStatus.usage)
      }
    }
    reader.onNotice = { pipeline.captureNotice($0) }
    let interruption = ReadInterruption.shared
    let end = reader.read { record in
      pipeline.process(record)
      if interruption.isSet { reader.stop() }
    }
    return ended(end, pipeline: pipeline)
  }

  private func readBtsnoop(_ file: BtsnoopFile, into pipeline: CapturePipeline) throws -> ReadEnd {
    if filter != nil {
      throw CommandFailure(
        "\(path): --filter (BPF) applies to pcap and pcapng files, not btsnoop logs",
        status: ExitStatus.usage)
    }
    guard let linkType = BluetoothLinkType.forBtsnoopDatalink(file.datalink) else {
      throw CommandFailure(
        "\(path): btsnoop datalink \(file.datalink) is not decoded; supported: 1001, 1002, 2001",
        status: unreadableStatus)
    }
    let interruption = ReadInterruption.shared
    let end = file.read { record in
      pipeline.processBluetooth(
        linkType, frame: record.frame, time: record.time, flags: record.flags, data: record.data)
      if interruption.isSet { file.stop() }
    }
    switch end {
    case .endOfFile: return ended(.endOfFile, pipeline: pipeline)
    case .damaged(let afterFrame, let byteOffset, let reason):
      return ended(
        .damaged(afterFrame: afterFrame, byteOffset: byteOffset, reason: reason), pipeline: pipeline)
    }
  }

  /// How reading ended: a signal overrules what the reader saw (a read the
  /// signal cut short looks like damage, and is not).
  private func ended(_ end: ReadEnd, pipeline: CapturePipeline) -> ReadEnd {
    let interruption = ReadInterruption.shared
    guard interruption.isSet else { return end }
    pipeline.stats.interrupted = interruption.signalName
    return .endOfFile
  }

  static func isBtsnoop(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let magic = (try? handle.read(upToCount: 8)) ?? Data()
    return magic == Data("btsnoop\0".utf8)
  }
}
