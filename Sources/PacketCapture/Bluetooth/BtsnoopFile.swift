import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One btsnoop record. `data` points into the reader's window of the file
/// and is valid only inside the `read` callback.
public struct BtsnoopRecord {
  /// 1-based record number.
  public var frame: Int
  /// Unix seconds.
  public var time: Double
  /// Bit 0: direction (0 sent, host→controller; 1 received). Bit 1: 1 for a
  /// command or event, 0 for data. For datalink 2001 (Linux monitor) the
  /// flags are instead `adapter index << 16 | monitor opcode`.
  public var flags: UInt32
  public var originalLength: Int
  public var cumulativeDrops: UInt32
  /// Byte offset of the record header in the file.
  public var fileOffset: Int
  public var data: UnsafeRawBufferPointer
}

/// How a read ended: at a clean end of file, or at a record that is cut off
/// or impossible (the records before it were all delivered).
public enum BtsnoopEnd: Sendable, Equatable {
  case endOfFile
  case damaged(afterFrame: Int, byteOffset: Int, reason: String)
}

/// A btsnoop file (Android's btsnoop_hci.log, `btmon -w`), read record by
/// record through one window of a quarter megabyte; the file is never
/// loaded whole.
///
/// Layout (big-endian): 16-byte header `btsnoop\0`, version (1), datalink;
/// then records of original length, included length, flags, cumulative
/// drops, timestamp (microseconds since midnight 1 January 0 AD), data.
public final class BtsnoopFile {
  public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
  public static let headerLength = 16
  public static let recordHeaderLength = 24
  /// An HCI packet is at most 65,535 bytes of ACL data plus its headers; a
  /// larger included length means the record header is garbage.
  public static let maxRecordLength = 0x1_0000 + 64
  /// Microseconds from midnight 1 January 0 AD (nominal Gregorian) to the
  /// Unix epoch. The constant the btsnoop description quotes,
  /// 0x00E03AB44A676000, is midnight 1 January *2000*: BlueZ adds 946,684,800
  /// seconds after subtracting it, and Wireshark uses this value; with the
  /// 2000 constant real Android logs would read 30 years early.
  public static let unixEpochMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000

  /// Datalinks the btsnoop format defines and this reader accepts.
  public static let datalinkNames: [UInt32: String] = [
    1001: "HCI unencapsulated", 1002: "HCI UART (H4)", 1003: "HCI BCSP",
    1004: "HCI three-wire (H5)", 2001: "Linux monitor",
  ]

  public let path: String
  public let version: UInt32
  public let datalink: UInt32

  private let file: UnsafeMutablePointer<FILE>
  /// The bytes a file read from memory (`init(bytes:)`) is opened on.
  private let memory: UnsafeMutableRawPointer?
  /// Whether a `read` has begun: the first starts where the header check
  /// left the stream, so a pipe (which cannot seek) is read too.
  private var hasRead = false
  private var stopRequested = false
  /// Standard input (a pipe, maybe a live `adb shell` stream): read what
  /// each record needs (`RecordWindow`).
  private var isStream: Bool { path == "-" }

  public convenience init(path: String) throws(BluetoothError) {
    guard let file = fopen(path, "rb") else {
      let reason = String(cString: strerror(errno))
      throw BluetoothError("cannot open \(path): \(reason)")
    }
    try self.init(file: file, path: path, memory: nil)
  }

  /// Reads standard input whose first bytes `input` has looked at (a log
  /// piped in: `adb shell cat btsnoop_hci.log | pktbench decode -`).
  public convenience init(standardInput input: StandardInput) throws(BluetoothError) {
    guard let file = input.open() else { throw BluetoothError("cannot read standard input") }
    try self.init(file: file, path: "-", memory: nil)
  }

  /// Reads a btsnoop file held in memory (the fuzzer's inputs), through the
  /// same reader as files, via fmemopen.
  public convenience init(bytes: [UInt8], name: String = "(memory)") throws(BluetoothError) {
    guard let opened = MemoryFile(bytes) else { throw BluetoothError("cannot open \(name) in memory") }
    do {
      try self.init(file: opened.file, path: name, memory: opened.memory)
    } catch {
      opened.memory.deallocate()
      throw error
    }
  }

  /// Checks the header of `file` (closed here when it is refused).
  private init(file: UnsafeMutablePointer<FILE>, path: String, memory: UnsafeMutableRawPointer?)
    throws(BluetoothError)
  {
    var header = [UInt8](repeating: 0, count: Self.headerLength)
    let got = header.withUnsafeMutableBytes { fread($0.baseAddress, 1, Self.headerLength, file) }
    guard got >= Self.magic.count, Array(header[0..<Self.magic.count]) == Self.magic else {
      fclose(file)
      let seen = Array(header[0..<min(got, Self.magic.count)])
      throw BluetoothError(
        "\(path) is not a btsnoop file: it starts with "
          + (seen.isEmpty ? "nothing (empty file)" : "\(Hex.spaced(seen))\(Self.guessFormat(seen))")
          + ", not 62 74 73 6E 6F 6F 70 00 (\"btsnoop\\0\")")
    }
    guard got == Self.headerLength else {
      fclose(file)
      throw BluetoothError(
        "\(path) is cut off inside the btsnoop header: \(got) of \(Self.headerLength) bytes")
    }
    let (version, datalink) = header.withUnsafeBytes { ($0.btBE32(8), $0.btBE32(12)) }
    guard version == 1 else {
      fclose(file)
      throw BluetoothError("\(path): unsupported btsnoop version \(version) (only version 1 is defined)")
    }
    guard Self.datalinkNames[datalink] != nil else {
      fclose(file)
      let known = Self.datalinkNames.keys.sorted().map { "\($0) \(Self.datalinkNames[$0] ?? "")" }
      throw BluetoothError(
        "\(path): unsupported btsnoop datalink \(datalink) (supported: \(known.joined(separator: ", ")))")
    }
    self.path = path
    self.file = file
    self.memory = memory
    self.version = version
    self.datalink = datalink
  }

  deinit {
    fclose(file)
    memory?.deallocate()
  }

  /// Bytes read from the file at a time: records are parsed in place in
  /// this window, and one that crosses its end is moved to the front first.
  /// It holds the largest record, so memory stays at this whatever the file.
  public static let windowLength = 1 << 18

  /// Makes a `read` in progress return (`.endOfFile`) after the current record.
  public func stop() {
    stopRequested = true
  }

  /// Calls `body` for each record in file order, from the first record on
  /// every call. Records are views of a window of the file read a quarter
  /// megabyte at a time (not two reads per record).
  public func read(_ body: (BtsnoopRecord) -> Void) -> BtsnoopEnd {
    var offset = Self.headerLength
    var frame = 0
    stopRequested = false
    if hasRead {
      guard fseeko(file, off_t(offset), SEEK_SET) == 0 else {
        return .damaged(afterFrame: 0, byteOffset: offset, reason: "cannot seek to the first record")
      }
    }
    hasRead = true
    let window = UnsafeMutableRawPointer.allocate(byteCount: Self.windowLength, alignment: 8)
    defer { window.deallocate() }
    var records = RecordWindow(window, capacity: Self.windowLength, file: file, readsWhatItNeeds: isStream)
    while !stopRequested {
      guard records.fill(Self.recordHeaderLength) else {
        let got = records.count
        if let readError = records.readError {
          return .damaged(
            afterFrame: frame, byteOffset: offset,
            reason: "read error before record \(frame + 1): \(readError)")
        }
        if got == 0 { return .endOfFile }
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) is cut off inside its header: "
            + "\(got) of \(Self.recordHeaderLength) bytes")
      }
      let header = records.bytes(at: 0, count: Self.recordHeaderLength)
      let originalLength = Int(header.btBE32(0))
      let includedLength = Int(header.btBE32(4))
      let flags = header.btBE32(8)
      let drops = header.btBE32(12)
      let stamp = Int64(bitPattern: UInt64(header.btBE32(16)) << 32 | UInt64(header.btBE32(20)))
      guard includedLength <= Self.maxRecordLength else {
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) claims \(includedLength) bytes, more than "
            + "the \(Self.maxRecordLength) any HCI packet needs: the record header is damaged")
      }
      guard records.fill(Self.recordHeaderLength + includedLength) else {
        if let readError = records.readError {
          return .damaged(
            afterFrame: frame, byteOffset: offset,
            reason: "read error inside record \(frame + 1): \(readError)")
        }
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) is cut off: its header says "
            + "\(includedLength) bytes but only \(records.count - Self.recordHeaderLength) remain")
      }
      frame += 1
      let time = Double(stamp &- Self.unixEpochMicroseconds) / 1_000_000
      body(
        BtsnoopRecord(
          frame: frame, time: time, flags: flags, originalLength: originalLength,
          cumulativeDrops: drops, fileOffset: offset,
          data: records.bytes(at: Self.recordHeaderLength, count: includedLength)
        ))
      records.consume(Self.recordHeaderLength + includedLength)
      offset += Self.recordHeaderLength + includedLength
    }
    return .endOfFile
  }

  /// A hint when the bytes are a format a user may have confused with btsnoop.
  private static func guessFormat(_ bytes: [UInt8]) -> String {
    let prefix = Array(bytes.prefix(4))
    switch prefix {
    case [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1],
      [0xA1, 0xB2, 0x3C, 0x4D]:
      return " (a pcap file: open it as a capture instead)"
    case [0x0A, 0x0D, 0x0D, 0x0A]: return " (a pcapng file: open it as a capture instead)"
    default: return ""
    }
  }
}
