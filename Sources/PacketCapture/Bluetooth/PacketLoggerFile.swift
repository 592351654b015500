import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One PacketLogger record. `data` starts with the record's type byte and
/// points into the reader's window of the file: valid only inside the
/// `read` callback.
public struct PacketLoggerRecord {
  /// 1-based record number.
  public var frame: Int
  /// Unix seconds.
  public var time: Double
  /// Byte offset of the record's length field in the file.
  public var fileOffset: Int
  /// The type byte, then the packet or text (empty for a record whose
  /// length says it holds only its timestamp).
  public var data: UnsafeRawBufferPointer
}

/// An Apple PacketLogger file (`.pklg`: PacketLogger on a Mac, or the
/// Bluetooth log of an iOS sysdiagnose), read record by record through one
/// window; the file is never loaded whole.
///
/// There is no file header. Each record is a 4-byte length (of what follows
/// it: the timestamp, the type byte and the data), the timestamp as 4-byte
/// seconds and 4-byte microseconds since 1970, the type byte (00 HCI
/// command, 01 event, 02/03 ACL sent/received, 08/09 SCO, 0A/0B LMP, F7
/// syslog, F8–FE kernel, error, power, note, config and new-controller
/// text), then the data. PacketLogger on a Mac writes the numbers
/// big-endian; iOS logs are little-endian. A length is under 65,536, so
/// its two high bytes are zero: which end they sit at tells the order, as
/// Wireshark tells it.
public final class PacketLoggerFile {
  public enum ByteOrder: Sendable, Equatable, CustomStringConvertible {
    case bigEndian, littleEndian

    public var description: String { self == .bigEndian ? "big-endian" : "little-endian" }
  }

  public static let recordHeaderLength = 12
  /// Bytes `byteOrder(ofFirstBytes:)` needs: the first record's header and type byte.
  public static let detectionLength = 13
  /// The largest record data Wireshark reads (WTAP_MAX_PACKET_SIZE_STANDARD);
  /// a longer length means the record header is damaged.
  public static let maxRecordLength = 262_144
  /// Bytes read from the file at a time; it holds the largest record.
  public static let windowLength = 1 << 19

  /// The record types PacketLogger writes (Wireshark's list).
  public static let knownTypes: Set<UInt8> = [
    0x00, 0x01, 0x02, 0x03, 0x08, 0x09, 0x0A, 0x0B, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE,
  ]

  /// The byte order of a PacketLogger file that starts with `bytes`, or nil
  /// when they are not the start of one: the first record's length leaves
  /// room for the timestamp and is under 65,536, its microseconds are under
  /// a million and its type is one PacketLogger writes (Wireshark's test).
  /// Wireshark also tests the next four records; the first alone decides
  /// here, so that stdin is told by 13 bytes and a file damaged in its
  /// second record still gives its first and says where the damage is.
  /// No pcap, pcapng or btsnoop file passes: their magic numbers do not
  /// read as a length under 65,536. Needs `detectionLength` bytes.
  public static func byteOrder<Bytes: Collection<UInt8>>(ofFirstBytes bytes: Bytes) -> ByteOrder? {
    let head = Array(bytes.prefix(detectionLength))
    guard head.count == detectionLength else { return nil }
    let order: ByteOrder =
      head[0] == 0 && head[1] == 0 && (head[2] | head[3]) != 0 ? .bigEndian : .littleEndian
    let length = Self.uInt32(head, 0, order)
    let microseconds = Self.uInt32(head, 8, order)
    guard length >= 8, length < 0x1_0000, microseconds < 1_000_000 else { return nil }
    guard length == 8 || knownTypes.contains(head[12]) else { return nil }
    return order
  }

  public let path: String
  public let byteOrder: ByteOrder

  private let file: UnsafeMutablePointer<FILE>
  /// The bytes a file read from memory (`init(bytes:)`) is opened on.
  private let memory: UnsafeMutableRawPointer?
  private let window: UnsafeMutableRawPointer
  /// The file's first bytes, read by the format check and still in the
  /// window for the first `read` (a pipe cannot be read again).
  private var initialBytes: Int
  /// Set for standard input: a pipe may pause (a log still being written),
  /// and the records already sent are decoded meanwhile, so reads ask for
  /// what the next record needs (stdio buffers the rest), not a window.
  private var readsWhatItNeeds = false
  private var hasRead = false
  private var stopRequested = false

  public convenience init(path: String) throws(BluetoothError) {
    guard let file = fopen(path, "rb") else {
      let reason = String(cString: strerror(errno))
      throw BluetoothError("cannot open \(path): \(reason)")
    }
    try self.init(file: file, path: path, memory: nil)
  }

  /// Reads a PacketLogger file held in memory (the fuzzer's inputs) through
  /// the same reader as files, via fmemopen.
  public convenience init(bytes: [UInt8], name: String = "(memory)") throws(BluetoothError) {
    guard let opened = MemoryFile(bytes) else { throw BluetoothError("cannot open \(name) in memory") }
    do {
      try self.init(file: opened.file, path: name, memory: opened.memory)
    } catch {
      opened.memory.deallocate()
      throw error
    }
  }

  /// Reads standard input whose first bytes `input` has looked at (a log
  /// piped in: `cat trace.pklg | pktbench decode -`).
  public convenience init(standardInput input: StandardInput) throws(BluetoothError) {
    guard let file = input.open() else { throw BluetoothError("cannot read standard input") }
    try self.init(file: file, path: "-", memory: nil)
    readsWhatItNeeds = true
  }

  /// Checks the first record (`file` is closed here when it is refused).
  private init(file: UnsafeMutablePointer<FILE>, path: String, memory: UnsafeMutableRawPointer?)
    throws(BluetoothError)
  {
    let window = UnsafeMutableRawPointer.allocate(byteCount: Self.windowLength, alignment: 8)
    let got = fread(window, 1, Self.detectionLength, file)
    let head = [UInt8](UnsafeRawBufferPointer(start: window, count: got))
    guard let order = Self.byteOrder(ofFirstBytes: head) else {
      fclose(file)
      window.deallocate()
      throw BluetoothError(
        "\(path) is not a PacketLogger file: "
          + (head.isEmpty
            ? "it is empty"
            : "it starts with \(Hex.spaced(Array(head.prefix(Self.detectionLength)))), not a record header "
              + "(length 8–65535, microseconds under 1,000,000, a PacketLogger type byte) in either byte order")
      )
    }
    self.path = path
    self.file = file
    self.memory = memory
    self.window = window
    self.byteOrder = order
    initialBytes = got
  }

  deinit {
    fclose(file)
    memory?.deallocate()
    window.deallocate()
  }

  /// Makes a `read` in progress return (`.endOfFile`) after the current record.
  public func stop() {
    stopRequested = true
  }

  /// Calls `body` for each record in file order, from the first record on
  /// every call (a second call on a pipe finds nothing more). Records are
  /// views of the window, refilled half a megabyte at a time from a file.
  public func read(_ body: (PacketLoggerRecord) -> Void) -> ReadEnd {
    var filled = 0
    if hasRead {
      guard fseeko(file, 0, SEEK_SET) == 0 else {
        return .damaged(afterFrame: 0, byteOffset: 0, reason: "cannot seek to the first record")
      }
    } else {
      filled = initialBytes
    }
    hasRead = true
    stopRequested = false
    var offset = 0
    var frame = 0
    let order = byteOrder
    var records = RecordWindow(
      window, capacity: Self.windowLength, file: file, readsWhatItNeeds: readsWhatItNeeds, filled: filled)
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
      let length = Int(Self.uInt32(header, 0, order))
      guard length >= 8 else {
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) has length \(length), less than the 8 bytes "
            + "of its own timestamp: the record header is damaged")
      }
      let dataLength = length - 8
      guard dataLength <= Self.maxRecordLength else {
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) claims \(dataLength) bytes, more than the "
            + "\(Self.maxRecordLength) a PacketLogger record holds: the record header is damaged")
      }
      guard records.fill(Self.recordHeaderLength + dataLength) else {
        if let readError = records.readError {
          return .damaged(
            afterFrame: frame, byteOffset: offset,
            reason: "read error inside record \(frame + 1): \(readError)")
        }
        return .damaged(
          afterFrame: frame, byteOffset: offset,
          reason: "record \(frame + 1) at byte \(offset) is cut off: its header says "
            + "\(dataLength) bytes after the timestamp but only \(records.count - Self.recordHeaderLength) remain"
        )
      }
      frame += 1
      let seconds = Self.uInt32(header, 4, order)
      let microseconds = Self.uInt32(header, 8, order)
      body(
        PacketLoggerRecord(
          frame: frame, time: Double(seconds) + Double(microseconds) / 1_000_000, fileOffset: offset,
          data: records.bytes(at: Self.recordHeaderLength, count: dataLength)))
      records.consume(Self.recordHeaderLength + dataLength)
      offset += Self.recordHeaderLength + dataLength
    }
    return .endOfFile
  }

  @inline(__always)
  private static func uInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ order: ByteOrder) -> UInt32 {
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    return order == .bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
  }

  private static func uInt32(_ bytes: [UInt8], _ offset: Int, _ order: ByteOrder) -> UInt32 {
    bytes.withUnsafeBytes { uInt32($0, offset, order) }
  }
}
