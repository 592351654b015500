import CPcap
import Foundation
import PacketCapture
import PacketKit

/// `decode -w OUT.pcapng`: the records that carried the messages shown,
/// copied from the input files into one pcapng file. The decoding pass
/// marks record numbers (`FrameSelection`); this second pass reads the
/// file again and copies those records, bytes and times as they were, so
/// memory stays one bit per record however much is kept.
package final class PcapngExport {
  package let path: String
  private var writer: PcapngWriter?
  private var linkType: Int32?
  /// Records of another link type than the file's first (a pcapng with
  /// mixed interfaces, or files of different kinds): not written.
  package private(set) var skipped = 0
  /// Times outside what pcapng holds, written clamped.
  package private(set) var times = PcapngTimes()

  /// Refuses an output that is one of the inputs (the same file, through a
  /// link or not): its records would be read back while it is rewritten.
  package init(path: String, inputs: [String]) throws(CommandFailure) {
    self.path = path
    var output = stat()
    guard path != "-", stat(path, &output) == 0 else { return }
    for input in inputs {
      var read = stat()
      if stat(input, &read) == 0, read.st_dev == output.st_dev, read.st_ino == output.st_ino {
        throw CommandFailure(
          "-w \(path) is the input \(input) (the same file); write the records to another file",
          status: ExitStatus.usage)
      }
    }
  }

  package var recordsWritten: Int { writer?.packetsWritten ?? 0 }

  /// Copies the records of `input` in `selection`.
  package func copy(from input: String, selection: FrameSelection) throws(CommandFailure) {
    if CaptureInput.isBtsnoop(path: input) {
      try copyBtsnoop(input, selection)
      return
    }
    guard let last = selection.last else {
      // Nothing kept: the file still gets its headers, with this input's link type.
      if writer == nil, let reader = try? PcapFileReader(path: input) {
        _ = try self.writer(linkType: reader.linkType, snapshotLength: Int(reader.snapshotLength), input)
      }
      return
    }
    let copied = try copyExact(input, selection, last: last)
    guard copied < last else { return }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: input)
    } catch {
      throw CommandFailure("\(input): \(error.text)", status: ExitStatus.unreadable)
    }
    let writer = try self.writer(linkType: reader.linkType, snapshotLength: Int(reader.snapshotLength), input)
    let microseconds = Self.hasMicrosecondStamps(input)
    var failure: CaptureError?
    _ = reader.read { record in
      guard record.frame > copied, selection.contains(record.frame) else {
        if record.frame >= last { reader.stop() }
        return
      }
      guard record.linkType == linkType else {
        skipped += 1
        return
      }
      do throws(CaptureError) {
        try writer.write(
          timeNanoseconds: times.nanoseconds(record.time, microseconds: microseconds, frame: record.frame),
          data: record.data, originalLength: record.originalLength)
      } catch {
        failure = error
        reader.stop()
      }
    }
    if let failure { throw CommandFailure(failure.text, status: ExitStatus.output) }
  }

  /// Copies through libpcap itself, so that times keep every digit (the
  /// reader hands them over as a Double: about 0.2 µs of a Unix time);
  /// returns the records read, fewer than `last` when libpcap stopped (a
  /// pcapng whose interfaces have several link types: the reader's own
  /// fallback copies the rest).
  private func copyExact(_ input: String, _ selection: FrameSelection, last: Int) throws(CommandFailure)
    -> Int
  {
    var error = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    guard
      let handle = pcap_open_offline_with_tstamp_precision(input, UInt32(PCAP_TSTAMP_PRECISION_NANO), &error)
    else { return 0 }
    defer { pcap_close(handle) }
    let writer = try self.writer(
      linkType: pcap_datalink(handle), snapshotLength: Int(pcap_snapshot(handle)), input)
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    var frame = 0
    while frame < last, pcap_next_ex(handle, &header, &data) == 1 {
      frame += 1
      guard selection.contains(frame), let header, let data else { continue }
      let stamp = header.pointee.ts
      let time = times.nanoseconds(seconds: stamp.tv_sec, nanoseconds: stamp.tv_usec, frame: frame)
      do throws(CaptureError) {
        try writer.write(
          timeNanoseconds: time,
          data: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)),
          originalLength: Int(header.pointee.len))
      } catch {
        throw CommandFailure(error.text, status: ExitStatus.output)
      }
    }
    return frame
  }

  /// A btsnoop log's records, as the pcap link types that keep what its
  /// record flags say: H4 with the direction header (201) for HCI logs,
  /// the Linux monitor header (254) for `btmon` logs.
  private func copyBtsnoop(_ input: String, _ selection: FrameSelection) throws(CommandFailure) {
    let file: BtsnoopFile
    do {
      file = try BtsnoopFile(path: input)
    } catch {
      throw CommandFailure("\(input): \(error.text)", status: ExitStatus.unreadable)
    }
    let monitor = file.datalink == 2001
    guard file.datalink == 1001 || file.datalink == 1002 || monitor else {
      throw CommandFailure(
        "\(input): -w writes btsnoop logs of datalink 1001, 1002 and 2001, not \(file.datalink)",
        status: ExitStatus.unreadable)
    }
    let writer = try self.writer(
      linkType: monitor ? 254 : 201, snapshotLength: BtsnoopFile.maxRecordLength, input)
    guard let last = selection.last else { return }
    var packet: [UInt8] = []
    var failure: CaptureError?
    _ = file.read { record in
      guard selection.contains(record.frame) else {
        if record.frame >= last { file.stop() }
        return
      }
      packet.removeAll(keepingCapacity: true)
      let flags = record.flags
      if monitor {
        packet += [UInt8(truncatingIfNeeded: flags >> 24), UInt8(truncatingIfNeeded: flags >> 16)]
        packet += [UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)]
      } else {
        packet += [0, 0, 0, UInt8(flags & 1)]
        if file.datalink == 1001 {
          // The H4 type byte the unencapsulated log leaves to its flags.
          packet.append(flags & 0b10 == 0 ? 0x02 : flags & 1 == 0 ? 0x01 : 0x04)
        }
      }
      let header = packet.count
      packet.append(contentsOf: record.data)
      let time = times.nanoseconds(record.time, microseconds: true, frame: record.frame)
      let written: CaptureError? = packet.withUnsafeBytes { bytes in
        do throws(CaptureError) {
          try writer.write(timeNanoseconds: time, data: bytes, originalLength: record.originalLength + header)
          return nil
        } catch {
          return error
        }
      }
      if let written {
        failure = written
        file.stop()
      }
    }
    if let failure { throw CommandFailure(failure.text, status: ExitStatus.output) }
  }

  /// The file's writer, made with the first input's link type.
  private func writer(linkType: Int32, snapshotLength: Int, _ input: String) throws(CommandFailure)
    -> PcapngWriter
  {
    if let writer {
      if linkType != self.linkType {
        throw CommandFailure(
          "\(input): -w writes one link type per file; this file's (\(linkType)) is not the first file's "
            + "(\(self.linkType ?? 0)); write each to its own file",
          status: ExitStatus.usage)
      }
      return writer
    }
    do {
      let made = try PcapngWriter(
        path: path, linkType: linkType, snapshotLength: snapshotLength > 0 ? snapshotLength : 262_144,
        replacing: true)
      writer = made
      self.linkType = linkType
      return made
    } catch {
      throw CommandFailure(error.text, status: ExitStatus.output)
    }
  }

  package func close() throws(CommandFailure) {
    do {
      try writer?.close()
    } catch {
      throw CommandFailure(error.text, status: ExitStatus.output)
    }
  }

  /// Whether a pcap file's magic number says microsecond stamps (pcapng
  /// says so per interface: taken as nanoseconds, the finer).
  static func hasMicrosecondStamps(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let magic = [UInt8]((try? handle.read(upToCount: 4)) ?? Data())
    return magic == [0xD4, 0xC3, 0xB2, 0xA1] || magic == [0xA1, 0xB2, 0xC3, 0xD4]
  }
}
