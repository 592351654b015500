/// A TCP header (RFC 9293) and the payload after its options.
struct TCPSegment {
  var sourcePort: UInt16
  var destinationPort: UInt16
  var sequence: UInt32
  /// Meaningful only with the ACK flag: the next byte the sender of this
  /// segment expects from its peer.
  var acknowledgement: UInt32
  var flags: UInt8
  var payload: UnsafeRawBufferPointer
  /// The payload's length on the wire: longer than `payload` when the
  /// capture's snap length cut the segment.
  var originalPayloadLength: Int

  static let protocolNumber: UInt8 = 6
  static let fin: UInt8 = 0x01
  static let syn: UInt8 = 0x02
  static let rst: UInt8 = 0x04
  static let ack: UInt8 = 0x10

  var isSYN: Bool { flags & Self.syn != 0 }
  var isFIN: Bool { flags & Self.fin != 0 }
  var isRST: Bool { flags & Self.rst != 0 }
  var isACK: Bool { flags & Self.ack != 0 }

  static func parse(_ input: LayerInput) throws(LayerFailure) -> TCPSegment {
    try input.require(20, at: 0, for: "TCP header", layer: "tcp")
    let dataOffset = Int(input.uInt8(12) >> 4) * 4
    guard dataOffset >= 20 else {
      throw input.damaged(
        "tcp", at: 12, "TCP data offset \(dataOffset) at \(input.position(12)); expected ≥ 20")
    }
    // Options the snap length cut (a 60-byte snap length keeps no more
    // than the fixed header of a segment with timestamps) leave the ports
    // and sequence numbers readable.
    if !input.isCut(claiming: dataOffset) {
      try input.require(dataOffset, at: 0, for: "TCP header with options", layer: "tcp")
    }
    let payloadStart = min(dataOffset, input.count)
    return TCPSegment(
      sourcePort: input.uInt16(0), destinationPort: input.uInt16(2), sequence: input.uInt32(4),
      acknowledgement: input.uInt32(8), flags: input.uInt8(13),
      payload: UnsafeRawBufferPointer(rebasing: input.bytes[payloadStart...]),
      originalPayloadLength: input.count + input.missing - dataOffset)
  }
}
