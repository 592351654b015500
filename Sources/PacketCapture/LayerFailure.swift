/// Why a layer could not hand a packet up: either it is something pktbench
/// does not decode (counted, not an error) or its bytes are damaged.
struct LayerFailure: Error {
  enum Kind {
    case undecoded
    case damaged
  }

  var kind: Kind
  var layer: String
  /// Byte offset in the frame (or in the reassembled datagram) of the damage.
  var offset: Int
  var text: String

  static func undecoded(_ reason: String) -> LayerFailure {
    LayerFailure(kind: .undecoded, layer: "", offset: 0, text: reason)
  }

  static func damaged(_ layer: String, at offset: Int, _ text: String) -> LayerFailure {
    LayerFailure(kind: .damaged, layer: layer, offset: offset, text: text)
  }
}

/// The bytes a layer parses plus what it needs to explain a short packet:
/// where they sit in the frame, and whether the snap length, not the sender,
/// made the packet short.
struct LayerInput {
  var bytes: UnsafeRawBufferPointer
  /// (captured, on the wire) when the capture cut the packet; nil when intact.
  var cut: (captured: Int, original: Int)?
  /// Added to local offsets to report frame offsets.
  var frameOffset: Int = 0
  /// Set for datagrams rebuilt from fragments, whose offsets are not frame offsets.
  var reassembled = false
  /// Bytes that belong right after these but that the snap length cut: a
  /// layer whose length field reaches this far past its bytes is cut, not
  /// damaged.
  var missing = 0

  init(
    bytes: UnsafeRawBufferPointer, cut: (captured: Int, original: Int)? = nil,
    frameOffset: Int = 0, reassembled: Bool = false, missing: Int = 0
  ) {
    self.bytes = bytes
    self.cut = cut
    self.frameOffset = frameOffset
    self.reassembled = reassembled
    self.missing = missing
  }

  init(_ record: CaptureRecord) {
    let captured = min(record.capturedLength, record.data.count)
    let cut = record.originalLength > captured ? (captured, record.originalLength) : nil
    self.init(
      bytes: UnsafeRawBufferPointer(rebasing: record.data[0..<captured]), cut: cut,
      missing: cut.map { $0.1 - $0.0 } ?? 0)
  }

  var count: Int { bytes.count }

  /// The frame offset of a local offset.
  func absolute(_ offset: Int) -> Int { frameOffset + offset }

  /// "offset 34", or "offset 8 of the reassembled datagram".
  func position(_ offset: Int) -> String {
    reassembled
      ? "offset \(absolute(offset)) of the reassembled datagram" : "offset \(absolute(offset))"
  }

  /// Fails unless `needed` bytes are available at `offset`.
  func require(_ needed: Int, at offset: Int, for what: String, layer: String) throws(LayerFailure) {
    guard offset >= 0, needed >= 0, offset <= bytes.count, bytes.count - offset >= needed else {
      throw short(what, needs: needed, at: offset, layer: layer)
    }
  }

  func short(_ what: String, needs needed: Int, at offset: Int, layer: String) -> LayerFailure {
    let remaining = max(0, bytes.count - offset)
    var text =
      "\(what) needs \(needed) byte\(needed == 1 ? "" : "s") at \(position(offset)), "
      + "but only \(remaining) remain"
    if let cut {
      text += " (the capture kept \(cut.captured) of \(cut.original) bytes)"
    }
    return .damaged(layer, at: absolute(offset), text)
  }

  func damaged(_ layer: String, at offset: Int, _ text: String) -> LayerFailure {
    .damaged(layer, at: absolute(offset), text)
  }

  func uInt8(_ offset: Int) -> UInt8 { bytes[offset] }

  func uInt16(_ offset: Int) -> UInt16 {
    UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  func uInt32(_ offset: Int) -> UInt32 {
    UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  /// Bytes `offset..<offset+length` (clamped to what is there) for the next
  /// layer up; what the clamp took off counts as `missing` as far as the
  /// snap length explains it.
  func slice(from offset: Int, length: Int? = nil) -> LayerInput {
    let start = max(0, min(offset, bytes.count))
    let end = length.map { max(start, min(bytes.count, start + $0)) } ?? bytes.count
    let lost = length.map { min(missing, max(0, start + $0 - end)) } ?? missing
    return LayerInput(
      bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), cut: cut,
      frameOffset: frameOffset + start, reassembled: reassembled, missing: lost)
  }

  /// Whether a length field that reaches `length` bytes from here runs past
  /// the bytes only because the snap length cut them.
  func isCut(claiming length: Int) -> Bool {
    length > bytes.count && length - bytes.count <= missing
  }
}
