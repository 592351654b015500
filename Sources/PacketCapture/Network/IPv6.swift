import PacketKit

/// An IPv6 packet (RFC 8200) with its extension headers walked: where the
/// upper-layer data starts, or the fragment it is part of.
struct IPv6Packet {
  var source: IPAddress
  var destination: IPAddress
  /// End of the IPv6 payload within the input (trims link-layer padding).
  var end: Int
  var next: IPv6Extensions.Next
  var diagnostics: [Diagnostic]

  static let headerLength = 40

  static func parse(_ input: LayerInput) throws(LayerFailure) -> IPv6Packet {
    try input.require(headerLength, at: 0, for: "IPv6 header", layer: "ipv6")
    let version = input.uInt8(0) >> 4
    guard version == 6 else {
      throw input.damaged("ipv6", at: 0, "IPv6 version \(version) at \(input.position(0)); expected 6")
    }
    let firstHeader = input.uInt8(6)
    var diagnostics: [Diagnostic] = []
    var end = headerLength + Int(input.uInt16(4))
    if end == headerLength, firstHeader != IPv6Extensions.noNextHeader {
      if firstHeader == IPv6Extensions.hopByHop, let jumbo = jumboLength(input) {
        end = headerLength + jumbo
      } else {
        // Large-send offload (BIG TCP) hands the capture a packet with a zero
        // payload length; its real length is what was captured.
        end = input.count
        diagnostics.append(
          .note(
            "ipv6-length-zero", "IPv6 payload length is 0 (segmentation offload); used the captured length"))
      }
    }
    // A packet the snap length cut keeps its headers: decode what is there.
    guard end <= input.count || input.isCut(claiming: end) else {
      throw input.short(
        "IPv6 packet of payload length \(end - headerLength)", needs: end, at: 0, layer: "ipv6")
    }
    let next = try IPv6Extensions.walk(
      input, from: headerLength, nextHeader: firstHeader, end: min(end, input.count))
    return IPv6Packet(
      source: IPAddress.read(input.bytes, at: 8, v6: true),
      destination: IPAddress.read(input.bytes, at: 24, v6: true), end: end, next: next,
      diagnostics: diagnostics)
  }

  /// The Jumbo Payload option (RFC 2675) in a hop-by-hop header at offset 40.
  private static func jumboLength(_ input: LayerInput) -> Int? {
    guard input.count >= headerLength + 2 else { return nil }
    let length = (Int(input.uInt8(headerLength + 1)) + 1) * 8
    guard input.count >= headerLength + length else { return nil }
    var offset = headerLength + 2
    while offset < headerLength + length {
      let type = input.uInt8(offset)
      if type == 0 {  // Pad1
        offset += 1
        continue
      }
      guard offset + 2 <= headerLength + length else { return nil }
      let optionLength = Int(input.uInt8(offset + 1))
      if type == 0xC2, optionLength == 4, offset + 6 <= headerLength + length {
        return Int(input.uInt32(offset + 2))
      }
      offset += 2 + optionLength
    }
    return nil
  }
}

/// The chain of IPv6 extension headers between the fixed header and the
/// upper-layer protocol.
enum IPv6Extensions {
  static let hopByHop: UInt8 = 0
  static let routing: UInt8 = 43
  static let fragment: UInt8 = 44
  static let authentication: UInt8 = 51
  static let noNextHeader: UInt8 = 59
  static let destinationOptions: UInt8 = 60
  /// Each header takes at least 8 bytes, so the packet length already bounds
  /// the walk; this only caps the work on a jumbogram. Test captures chain
  /// a hundred headers, and Wireshark follows them, so the cap is generous.
  static let maxHeaders = 1024

  struct Fragment {
    var identification: UInt32
    /// In bytes.
    var offset: Int
    var more: Bool
    /// The header that follows the fragment header in the reassembled data.
    var nextHeader: UInt8
    /// Where the fragmentable part starts in the input.
    var dataOffset: Int
  }

  enum Next {
    case upper(protocolNumber: UInt8, offset: Int)
    case fragment(Fragment)
  }

  /// Skips hop-by-hop, routing, destination options and AH headers; stops at
  /// the upper-layer protocol or a fragment header that needs reassembly.
  static func walk(
    _ input: LayerInput, from start: Int, nextHeader first: UInt8, end: Int
  ) throws(LayerFailure) -> Next {
    var offset = start
    var nextHeader = first
    for _ in 0..<maxHeaders {
      switch nextHeader {
      case hopByHop, routing, destinationOptions, authentication:
        guard end - offset >= 2 else {
          throw input.short("IPv6 extension header \(nextHeader)", needs: 2, at: offset, layer: "ipv6")
        }
        let length =
          nextHeader == authentication
          ? (Int(input.uInt8(offset + 1)) + 2) * 4 : (Int(input.uInt8(offset + 1)) + 1) * 8
        guard end - offset >= length else {
          throw input.short("IPv6 extension header \(nextHeader)", needs: length, at: offset, layer: "ipv6")
        }
        nextHeader = input.uInt8(offset)
        offset += length
      case fragment:
        guard end - offset >= 8 else {
          throw input.short("IPv6 fragment header", needs: 8, at: offset, layer: "ipv6")
        }
        let field = input.uInt16(offset + 2)
        let header = Fragment(
          identification: input.uInt32(offset + 4), offset: Int(field >> 3) * 8, more: field & 1 != 0,
          nextHeader: input.uInt8(offset), dataOffset: offset + 8)
        // An atomic fragment (RFC 6946) is a whole packet: keep walking.
        if header.offset != 0 || header.more { return .fragment(header) }
        nextHeader = header.nextHeader
        offset += 8
      case noNextHeader:
        throw .undecoded("IPv6 packet with no next header")
      default:
        return .upper(protocolNumber: nextHeader, offset: offset)
      }
    }
    throw input.damaged("ipv6", at: offset, "more than \(maxHeaders) IPv6 extension headers")
  }
}
