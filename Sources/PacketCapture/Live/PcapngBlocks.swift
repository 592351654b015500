/// The pcapng blocks a capture file needs, as bytes: a section header, one
/// interface description, an enhanced packet block per packet, and at the
/// end an interface statistics block that records when the capture ended
/// (draft-ietf-opsawg-pcapng). libpcap can read pcapng but not write it.
///
/// Everything is written little-endian; the section header's byte-order
/// magic tells readers so. Every block is padded to 32 bits and carries its
/// total length at both ends, which is how readers walk backwards.
public enum PcapngBlocks {
  public static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
  public static let interfaceDescriptionType: UInt32 = 0x0000_0001
  public static let enhancedPacketType: UInt32 = 0x0000_0006
  public static let interfaceStatisticsType: UInt32 = 0x0000_0005
  public static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

  /// Option codes used here.
  enum Option {
    static let endOfOptions: UInt16 = 0
    static let shbUserApplication: UInt16 = 4
    static let ifName: UInt16 = 2
    static let ifTimestampResolution: UInt16 = 9
    static let isbStartTime: UInt16 = 2
    static let isbEndTime: UInt16 = 3
    static let isbInterfaceReceived: UInt16 = 4
    static let isbInterfaceDropped: UInt16 = 5
  }

  /// Interface statistics for interface 0 as the capture ends, timestamps
  /// in nanoseconds (the interface's if_tsresol): `isb_starttime`,
  /// `isb_endtime`, and the kernel's counts when known. A reader learns
  /// from `isb_endtime` that nothing came between the last packet and then.
  public static func interfaceStatistics(
    startNanoseconds: UInt64?, endNanoseconds: UInt64, received: UInt64? = nil, dropped: UInt64? = nil
  ) -> [UInt8] {
    var body: [UInt8] = []
    append32(0, to: &body)
    append32(UInt32(truncatingIfNeeded: endNanoseconds >> 32), to: &body)
    append32(UInt32(truncatingIfNeeded: endNanoseconds), to: &body)
    func time(_ nanoseconds: UInt64) -> [UInt8] {
      var value: [UInt8] = []
      append32(UInt32(truncatingIfNeeded: nanoseconds >> 32), to: &value)
      append32(UInt32(truncatingIfNeeded: nanoseconds), to: &value)
      return value
    }
    func count(_ value: UInt64) -> [UInt8] {
      (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    var options: [(UInt16, [UInt8])] = []
    if let startNanoseconds { options.append((Option.isbStartTime, time(startNanoseconds))) }
    options.append((Option.isbEndTime, time(endNanoseconds)))
    if let received { options.append((Option.isbInterfaceReceived, count(received))) }
    if let dropped { options.append((Option.isbInterfaceDropped, count(dropped))) }
    appendOptions(options, to: &body)
    return block(interfaceStatisticsType, body: body)
  }

  /// Section header, version 1.0, section length unknown (-1).
  public static func sectionHeader(application: String?) -> [UInt8] {
    var body: [UInt8] = []
    append32(byteOrderMagic, to: &body)
    append16(1, to: &body)
    append16(0, to: &body)
    body += [UInt8](repeating: 0xFF, count: 8)
    var options: [(UInt16, [UInt8])] = []
    if let application { options.append((Option.shbUserApplication, Array(application.utf8))) }
    appendOptions(options, to: &body)
    return block(sectionHeaderType, body: body)
  }

  /// Interface description: the link type, the snap length, the name and
  /// if_tsresol 9 (timestamps count nanoseconds).
  public static func interfaceDescription(linkType: Int32, snapshotLength: UInt32, name: String?)
    -> [UInt8]
  {
    var body: [UInt8] = []
    append16(UInt16(truncatingIfNeeded: linkType), to: &body)
    append16(0, to: &body)
    append32(snapshotLength, to: &body)
    var options: [(UInt16, [UInt8])] = []
    if let name { options.append((Option.ifName, Array(name.utf8))) }
    options.append((Option.ifTimestampResolution, [9]))
    appendOptions(options, to: &body)
    return block(interfaceDescriptionType, body: body)
  }

  /// Enhanced packet block for interface `interface`; the timestamp is in
  /// nanoseconds since the Unix epoch, split into high and low 32 bits.
  public static func enhancedPacket(
    interface: UInt32, timeNanoseconds: UInt64, data: UnsafeRawBufferPointer, originalLength: Int
  ) -> [UInt8] {
    var out: [UInt8] = []
    appendEnhancedPacket(
      interface: interface, timeNanoseconds: timeNanoseconds, data: data, originalLength: originalLength,
      to: &out)
    return out
  }

  /// The same, appended to `out` without an intermediate array.
  public static func appendEnhancedPacket(
    interface: UInt32, timeNanoseconds: UInt64, data: UnsafeRawBufferPointer, originalLength: Int,
    to out: inout [UInt8]
  ) {
    let padding = (4 - data.count % 4) % 4
    let total = UInt32(truncatingIfNeeded: 12 + 20 + data.count + padding)
    append32(enhancedPacketType, to: &out)
    append32(total, to: &out)
    append32(interface, to: &out)
    append32(UInt32(truncatingIfNeeded: timeNanoseconds >> 32), to: &out)
    append32(UInt32(truncatingIfNeeded: timeNanoseconds), to: &out)
    append32(UInt32(truncatingIfNeeded: data.count), to: &out)
    append32(UInt32(clamping: max(originalLength, data.count)), to: &out)
    out.append(contentsOf: data)
    out.append(contentsOf: repeatElement(0, count: padding))
    append32(total, to: &out)
  }

  // MARK: Helpers

  static func block(_ type: UInt32, body: [UInt8]) -> [UInt8] {
    // The body is always 32-bit aligned here: options are padded.
    let total = UInt32(12 + body.count)
    var out: [UInt8] = []
    out.reserveCapacity(Int(total))
    append32(type, to: &out)
    append32(total, to: &out)
    out += body
    append32(total, to: &out)
    return out
  }

  /// Options as code, length, value padded to 32 bits, then opt_endofopt;
  /// nothing at all when there are none.
  static func appendOptions(_ options: [(UInt16, [UInt8])], to out: inout [UInt8]) {
    guard !options.isEmpty else { return }
    for (code, value) in options {
      let value = value.prefix(Int(UInt16.max) - 3)
      append16(code, to: &out)
      append16(UInt16(value.count), to: &out)
      out += value
      out += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }
    append16(Option.endOfOptions, to: &out)
    append16(0, to: &out)
  }

  static func append16(_ value: UInt16, to out: inout [UInt8]) {
    out.append(UInt8(truncatingIfNeeded: value))
    out.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  static func append32(_ value: UInt32, to out: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
  }
}
