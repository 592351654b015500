/// Apple's PKTAP header (`net/pktap.h`): what macOS puts before each packet
/// captured on `pktap` interfaces, which `tcpdump -i any` and the `rvi0`
/// interface of `rvictl` (an iPhone's traffic) record. Files say
/// LINKTYPE_PKTAP (258); macOS's tcpdump also writes its own DLT_PKTAP
/// number, 149 (DLT_USER2 elsewhere).
///
/// The fields are in the capturing Mac's byte order, little-endian:
///
///     0   header length (the packet starts there)    52  process ID
///     4   record type (1: a packet)                   56  process name (17 bytes, NUL-padded)
///     8   DLT of the packet (1 Ethernet, 0 NULL, …)   76  service class
///     12  interface name (24 bytes)                   80  interface type, unit (2 bytes each)
///     36  flags (1 in, 2 out)                         84  effective process ID
///     40  protocol family                             88  effective process name (17 bytes)
///     44  link header and trailer lengths (4 each)
///
/// Later macOS versions append a flow ID, IP protocol, a timestamp and
/// UUIDs; the header length covers them, so readers skip what they do not
/// know. Wireshark needs the 108 bytes up to the effective process name.
public enum PKTAP {
  public static let linkType: Int32 = 258
  /// DLT_PKTAP as Darwin numbers it.
  public static let darwinDLT: Int32 = 149
  /// Through the effective process name: every field this reader reads.
  public static let minimumHeaderLength = 108
  static let packetRecordType: UInt32 = 1

  @inline(__always)
  public static func isPKTAP(_ linkType: Int32) -> Bool {
    linkType == Self.linkType || linkType == darwinDLT
  }

  /// The process a PKTAP header names: the one whose socket the packet went
  /// through, and the effective one it worked for when that differs (an
  /// app's traffic that a system daemon such as nsurlsessiond carries).
  public struct Process: Sendable, Equatable {
    public var name: String
    public var pid: Int32
    public var effectiveName: String?
    public var effectivePID: Int32?

    public init(name: String, pid: Int32, effectiveName: String? = nil, effectivePID: Int32? = nil) {
      self.name = name
      self.pid = pid
      self.effectiveName = effectiveName
      self.effectivePID = effectivePID
    }
  }

  /// The process of a PKTAP record's header; nil when the header is too
  /// short to hold one, or names none (no name: the kernel's own packets,
  /// or a packet matched to no socket).
  public static func process(_ data: UnsafeRawBufferPointer) -> Process? {
    guard data.count >= minimumHeaderLength, Int(le32(data, 0)) >= minimumHeaderLength else { return nil }
    let name = string(data, 56, 17)
    let pid = Int32(bitPattern: le32(data, 52))
    let effectiveName = string(data, 88, 17)
    let effectivePID = Int32(bitPattern: le32(data, 84))
    let effective = (effectiveName != name || effectivePID != pid) && !effectiveName.isEmpty
    guard !name.isEmpty || effective else { return nil }
    return Process(
      name: name, pid: pid, effectiveName: effective ? effectiveName : nil,
      effectivePID: effective ? effectivePID : nil)
  }

  /// The PKTAP header is skipped and the packet it carries goes to the
  /// link layer its DLT names; offsets stay those of the whole record.
  static func decode(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(4, at: 0, for: "PKTAP header length", layer: "pktap")
    let length = Int(le32(input.bytes, 0))
    guard length >= minimumHeaderLength else {
      throw input.damaged(
        "pktap", at: 0,
        "PKTAP header length is \(length), less than the \(minimumHeaderLength) bytes of its fields")
    }
    try input.require(length, at: 0, for: "PKTAP header", layer: "pktap")
    let recordType = le32(input.bytes, 4)
    guard recordType == packetRecordType else {
      throw .undecoded("PKTAP record type \(recordType) (not a packet)")
    }
    let dlt = Int32(bitPattern: le32(input.bytes, 8))
    // A PKTAP header inside another would let a record recurse.
    guard !isPKTAP(dlt), LinkLayer.supports(dlt) else {
      throw .undecoded("PKTAP packet of link type \(dlt) (\(LinkType.name(dlt)))")
    }
    let inner = try LinkLayer.decode(input.slice(from: length), linkType: dlt)
    return LinkFrame(network: inner.network, offset: length + inner.offset)
  }

  private static func le32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  /// A NUL-padded name field, up to its first NUL.
  private static func string(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ length: Int) -> String {
    let field = bytes[offset..<offset + length]
    let end = field.firstIndex(of: 0) ?? field.endIndex
    return String(decoding: bytes[offset..<end], as: UTF8.self)
  }
}
