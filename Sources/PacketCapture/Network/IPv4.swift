import PacketKit

/// An IPv4 header (RFC 791), checked against the bytes that follow it.
struct IPv4Header {
  var source: IPAddress
  var destination: IPAddress
  var protocolNumber: UInt8
  var headerLength: Int
  /// Header plus payload, trimmed of link-layer padding.
  var totalLength: Int
  var identification: UInt16
  var moreFragments: Bool
  /// In bytes.
  var fragmentOffset: Int
  /// Header checksum warnings and length notes.
  var diagnostics: [Diagnostic]

  var isFragment: Bool { moreFragments || fragmentOffset != 0 }

  static func parse(_ input: LayerInput) throws(LayerFailure) -> IPv4Header {
    try input.require(20, at: 0, for: "IPv4 header", layer: "ipv4")
    let version = input.uInt8(0) >> 4
    guard version == 4 else {
      throw input.damaged("ipv4", at: 0, "IPv4 version \(version) at \(input.position(0)); expected 4")
    }
    let headerLength = Int(input.uInt8(0) & 0x0F) * 4
    guard headerLength >= 20 else {
      throw input.damaged(
        "ipv4", at: 0, "IPv4 header length \(headerLength) at \(input.position(0)); expected ≥ 20")
    }
    try input.require(headerLength, at: 0, for: "IPv4 header with options", layer: "ipv4")
    var diagnostics: [Diagnostic] = []
    var totalLength = Int(input.uInt16(2))
    if totalLength == 0 {
      // Segmentation offload hands the capture one large packet before it
      // is split, with a zero length; its real length is what was captured.
      totalLength = input.count
      diagnostics.append(
        .note("ipv4-length-zero", "IPv4 total length is 0 (segmentation offload); used the captured length"))
    }
    guard totalLength >= headerLength else {
      throw input.damaged(
        "ipv4", at: 2,
        "IPv4 total length \(totalLength) at \(input.position(2)) is less than its header length \(headerLength)"
      )
    }
    // A packet the snap length cut keeps its header: decode what is there.
    guard totalLength <= input.count || input.isCut(claiming: totalLength) else {
      throw input.short(
        "IPv4 packet of total length \(totalLength)", needs: totalLength, at: 0, layer: "ipv4")
    }
    let header = UnsafeRawBufferPointer(rebasing: input.bytes[0..<headerLength])
    if InternetChecksum.finish(InternetChecksum.sum(header)) != 0 {
      let stored = input.uInt16(10)
      let withoutField = InternetChecksum.sum(
        UnsafeRawBufferPointer(rebasing: header[12...]),
        initial: InternetChecksum.sum(UnsafeRawBufferPointer(rebasing: header[0..<10])))
      let expected = InternetChecksum.finish(withoutField)
      diagnostics.append(
        .warning(
          "ipv4-checksum",
          "IPv4 header checksum \(hex16(stored)) at \(input.position(10)) is wrong; expected \(hex16(expected))"
        ))
    }
    let flagsAndOffset = input.uInt16(6)
    return IPv4Header(
      source: IPAddress.read(input.bytes, at: 12, v6: false),
      destination: IPAddress.read(input.bytes, at: 16, v6: false),
      protocolNumber: input.uInt8(9), headerLength: headerLength, totalLength: totalLength,
      identification: input.uInt16(4), moreFragments: flagsAndOffset & 0x2000 != 0,
      fragmentOffset: Int(flagsAndOffset & 0x1FFF) * 8, diagnostics: diagnostics)
  }
}

/// "0x1c46": four lower-case hex digits.
func hex16(_ value: UInt16) -> String {
  let digits = String(value, radix: 16)
  return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
