import Foundation
import PacketCapture
import PacketKit

/// One capture file (or stdin) as `decode` and `analyze` read it: btsnoop
/// logs and Apple PacketLogger files with pktbench's own readers (libpcap
/// reads neither), everything else through libpcap, with an optional BPF
/// filter.
///
/// Reading stops early, after a whole record, when SIGINT or SIGTERM
/// arrives (`ReadInterruption`); `pipeline.stats.interrupted` then says so.
package struct CaptureInput {
  package var path: String
  package var filter: String?
  /// Exit status when the input cannot be read.
  package var unreadableStatus: Int32 = ExitStatus.unreadable
  /// Standard input already looked at (`decode --codec X -` looks first,
  /// to tell a capture from a payload); nil: looked at here.
  package var standardInput: StandardInput?
  /// The line on stderr that shows how far reading has got, when there is one.
  package var progress: ProgressLine?

  package init(
    path: String, filter: String? = nil, unreadableStatus: Int32 = ExitStatus.unreadable,
    standardInput: StandardInput? = nil, progress: ProgressLine? = nil
  ) {
    self.path = path
    self.filter = filter
    self.unreadableStatus = unreadableStatus
    self.standardInput = standardInput
    self.progress = progress
  }

  package func read(into pipeline: CapturePipeline) throws -> ReadEnd {
    defer { progress?.finish() }
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
    if Self.isPacketLogger(path: path) {
      let file: PacketLoggerFile
      do {
        file = try PacketLoggerFile(path: path)
      } catch {
        throw CommandFailure("\(path): \(error.text)", status: unreadableStatus)
      }
      return try readPacketLogger(file, into: pipeline)
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
    let times = PcapngRecordedTimes.read(
      path: path, first: pipeline.stats.firstTime, last: pipeline.stats.lastTime)
    pipeline.stats.recordedStart = times?.start
    pipeline.stats.recordedEnd = times?.end
    pipeline.stats.recordedTimeNotes = times?.notes ?? []
    return end
  }

  /// stdin: a btsnoop log (Android's, piped from adb), a PacketLogger file
  /// or pcap/pcapng, told apart by their first bytes, as a file's are.
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
    case .packetLogger?:
      let file: PacketLoggerFile
      do {
        file = try PacketLoggerFile(standardInput: input)
      } catch {
        throw CommandFailure("-: \(error.text)", status: unreadableStatus)
      }
      return try readPacketLogger(file, into: pipeline)
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
      // A record header is 16 bytes in pcap, 28 and more in pcapng.
      progress?.record(length: record.capturedLength + 20)
      if interruption.isSet || pipeline.isFull { reader.stop() }
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
      progress?.record(length: record.data.count + BtsnoopFile.recordHeaderLength)
      if interruption.isSet || pipeline.isFull { file.stop() }
    }
    switch end {
    case .endOfFile: return ended(.endOfFile, pipeline: pipeline)
    case .damaged(let afterFrame, let byteOffset, let reason):
      return ended(
        .damaged(afterFrame: afterFrame, byteOffset: byteOffset, reason: reason), pipeline: pipeline)
    }
  }

  private func readPacketLogger(_ file: PacketLoggerFile, into pipeline: CapturePipeline) throws -> ReadEnd {
    if filter != nil {
      throw CommandFailure(
        "\(path): --filter (BPF) applies to pcap and pcapng files, not PacketLogger files",
        status: ExitStatus.usage)
    }
    let interruption = ReadInterruption.shared
    let end = file.read { record in
      pipeline.processBluetooth(
        .packetLogger, frame: record.frame, time: record.time, flags: 0, data: record.data)
      if interruption.isSet { file.stop() }
    }
    return ended(end, pipeline: pipeline)
  }

  /// How reading ended: a signal overrules what the reader saw (a read the
  /// signal cut short looks like damage, and is not).
  private func ended(_ end: ReadEnd, pipeline: CapturePipeline) -> ReadEnd {
    let interruption = ReadInterruption.shared
    guard interruption.isSet else { return end }
    pipeline.stats.interrupted = interruption.signalName
    return .endOfFile
  }

  /// Apple PacketLogger has no magic number: its first record header tells it.
  package static func isPacketLogger(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: PacketLoggerFile.detectionLength)) ?? Data()
    return PacketLoggerFile.byteOrder(ofFirstBytes: head) != nil
  }

  package static func isBtsnoop(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let magic = (try? handle.read(upToCount: 8)) ?? Data()
    return magic == Data("btsnoop\0".utf8)
  }
}
