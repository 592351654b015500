import PacketKit

/// A UDP header (RFC 768) and the payload its length field delimits.
struct UDPDatagram {
  var sourcePort: UInt16
  var destinationPort: UInt16
  var payload: UnsafeRawBufferPointer

  static let protocolNumber: UInt8 = 17

  /// Parses the IP payload in `input`. Length and checksum problems are
  /// warnings added to `diagnostics`: the payload may still be what the
  /// application received (checksum offload makes wrong checksums common).
  static func parse(
    _ input: LayerInput, source: IPAddress, destination: IPAddress, diagnostics: inout [Diagnostic]
  ) throws(LayerFailure) -> UDPDatagram {
    try input.require(8, at: 0, for: "UDP header", layer: "udp")
    let length = Int(input.uInt16(4))
    let available = input.count
    var end = available
    var verify = true
    if length < 8 {
      diagnostics.append(
        .warning(
          "udp-length",
          "UDP length \(length) at \(input.position(4)) is less than the 8-byte header; used the \(available) bytes the IP packet carries"
        ))
      verify = false
    } else if input.isCut(claiming: length) {
      // The snap length, not the sender, made it short: say so, and leave
      // the checksum, which covers bytes the capture does not hold.
      diagnostics.append(.captureCut(kept: available - 8, original: length - 8))
      verify = false
    } else if length > available {
      diagnostics.append(
        .warning(
          "udp-length",
          "UDP length \(length) at \(input.position(4)) exceeds the \(available) bytes the IP packet carries; used those"
        ))
      verify = false
    } else if length < available {
      diagnostics.append(
        .warning(
          "udp-length",
          "UDP length \(length) at \(input.position(4)) is shorter than the \(available) bytes the IP packet carries; payload trimmed"
        ))
      end = length
    }
    if verify {
      checkSum(input, length: length, source: source, destination: destination, diagnostics: &diagnostics)
    }
    return UDPDatagram(
      sourcePort: input.uInt16(0), destinationPort: input.uInt16(2),
      payload: UnsafeRawBufferPointer(rebasing: input.bytes[8..<end]))
  }

  private static func checkSum(
    _ input: LayerInput, length: Int, source: IPAddress, destination: IPAddress,
    diagnostics: inout [Diagnostic]
  ) {
    let stored = input.uInt16(6)
    if stored == 0 {
      // Zero means "no checksum" on IPv4; IPv6 forbids it (RFC 8200 §8.1).
      if source.isV6 {
        diagnostics.append(
          .warning("udp-checksum-zero", "UDP checksum is 0, which IPv6 does not allow (RFC 8200 §8.1)"))
      }
      return
    }
    let pseudo = InternetChecksum.pseudoHeaderSum(
      source: source, destination: destination, protocol: protocolNumber, length: length)
    let datagram = UnsafeRawBufferPointer(rebasing: input.bytes[0..<length])
    guard InternetChecksum.finish(InternetChecksum.sum(datagram, initial: pseudo)) != 0 else { return }
    // Checksum offload (CHECKSUM_PARTIAL, as on Linux loopback): the host
    // stores only the folded pseudo-header sum and leaves the rest to the
    // NIC, so a capture taken on the host sees that. Not damage.
    if stored == ~InternetChecksum.finish(pseudo) {
      diagnostics.append(
        .note(
          "udp-checksum-offloaded",
          "UDP checksum \(hex16(stored)) is the pseudo-header sum left for checksum offload; not verified"))
      return
    }
    let withoutField = InternetChecksum.sum(
      UnsafeRawBufferPointer(rebasing: datagram[8...]),
      initial: InternetChecksum.sum(UnsafeRawBufferPointer(rebasing: datagram[0..<6]), initial: pseudo))
    var expected = InternetChecksum.finish(withoutField)
    if expected == 0 { expected = 0xFFFF }  // a computed 0 is sent as all ones
    diagnostics.append(
      .warning(
        "udp-checksum",
        "UDP checksum \(hex16(stored)) at \(input.position(6)) is wrong; expected \(hex16(expected))"))
  }
}
