import PacketKit

extension KsRunner {
  // MARK: One element

  /// One element of an attribute from `stream`: its value and where it lies.
  mutating func readElement(
    _ read: KsRead, _ attribute: KsAttributePlan, object: Int32, stream: Int32, local: KsLocal
  ) throws(DecodeError) -> (KsValue, KsRange) {
    switch read {
    case .integer(let bytes, let signed, let endian):
      alignToByte(stream)
      let start = arena.streams[Int(stream)].pos
      try need(bytes, attribute, stream)
      let little = endian == .little || (endian == .object && arena.objects[Int(object)].little)
      let raw = readUnsigned(stream, bytes: bytes, little: little)
      let value = signed ? Self.signExtend(raw, bits: bytes * 8) : Int64(bitPattern: raw)
      return (.integer(value), payload(stream, start, start + Int32(bytes)))
    case .bits(let count, let little):
      let record = arena.streams[Int(stream)]
      let start = record.bitCount > 0 ? record.pos - 1 : record.pos
      let raw = try readBits(stream, count: count, little: little, attribute)
      let end = arena.streams[Int(stream)].pos
      let range = payload(stream, start, max(end, start + 1))
      if case .bool = attribute.type { return (.bool(raw != 0), range) }
      return (.integer(Int64(bitPattern: raw)), range)
    case .float(let bytes, let endian):
      alignToByte(stream)
      let start = arena.streams[Int(stream)].pos
      try need(bytes, attribute, stream)
      let little = endian == .little || (endian == .object && arena.objects[Int(object)].little)
      let raw = readUnsigned(stream, bytes: bytes, little: little)
      let value =
        bytes == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
      return (.float(value), payload(stream, start, start + Int32(bytes)))
    case .contents(let expected):
      alignToByte(stream)
      return try readContents(expected, attribute, stream)
    case .bytes(let size):
      let (slice, range) = try take(size, attribute, object: object, stream: stream, local: local)
      return (.bytes(slice), range)
    case .string(let size, let encoding):
      let (raw, range) = try take(size, attribute, object: object, stream: stream, local: local)
      return (.string(try text(raw, encoding: encoding, attribute, range)), range)
    case .user(let type, let arguments, let size):
      var values: [KsValue] = []
      if !arguments.isEmpty {
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try eval(argument, object, local)) }
      }
      guard let size else {
        alignToByte(stream)
        let child = try readObject(type: type, stream: stream, parent: object, arguments: values)
        return (.object(child), arena.objects[Int(child)].range)
      }
      let (slice, range) = try take(size, attribute, object: object, stream: stream, local: local)
      let sub = newStream(buffer: slice.buffer, start: slice.start, end: slice.end, payload: range)
      let child = try readObject(type: type, stream: sub, parent: object, arguments: values)
      return (.object(child), range)
    case .switched(let on, _, let cases, let fallback, let size):
      let value = try eval(on, object, local)
      var chosen = fallback
      for item in cases where matches(value, item.match) {
        chosen = item.read
        break
      }
      guard let size else {
        guard let chosen else { return (.absent, KsRange.empty) }
        return try readElement(chosen, attribute, object: object, stream: stream, local: local)
      }
      let (slice, range) = try take(size, attribute, object: object, stream: stream, local: local)
      guard let chosen else { return (.bytes(slice), range) }
      let sub = newStream(buffer: slice.buffer, start: slice.start, end: slice.end, payload: range)
      let (inner, innerRange) = try readElement(chosen, attribute, object: object, stream: sub, local: local)
      if case .object = inner { return (inner, range) }
      return (inner, innerRange)
    case .value(let code):
      return (try eval(code, object, local), KsRange.empty)
    }
  }

  static func signExtend(_ raw: UInt64, bits: Int) -> Int64 {
    guard bits < 64 else { return Int64(bitPattern: raw) }
    let shift = UInt64(64 - bits)
    return Int64(bitPattern: raw << shift) >> Int64(shift)
  }

  /// Whether a switch's value is this case's.
  func matches(_ value: KsValue, _ constant: KsConstant) -> Bool {
    switch (value, constant) {
    case (.integer(let a), .integer(let b)): return a == b
    case (.float(let a), .float(let b)): return a == b
    case (.float(let a), .integer(let b)): return a == Double(b)
    case (.bool(let a), .bool(let b)): return a == b
    case (.string(let slice), .string(let bytes)), (.bytes(let slice), .bytes(let bytes)):
      guard slice.count == bytes.count else { return false }
      for (offset, byte) in bytes.enumerated()
      where self.byte(slice.buffer, slice.start + Int32(offset)) != byte {
        return false
      }
      return true
    default: return false
    }
  }

  // MARK: Fixed-width reads

  mutating func alignToByte(_ stream: Int32) {
    if arena.streams[Int(stream)].bitCount != 0 {
      arena.streams[Int(stream)].bitCount = 0
      arena.streams[Int(stream)].bits = 0
    }
  }

  /// `count` bytes must remain; else a truncation at the read's start.
  mutating func need(_ count: Int, _ attribute: KsAttributePlan, _ stream: Int32) throws(DecodeError) {
    let record = arena.streams[Int(stream)]
    guard Int(record.end - record.pos) >= count else {
      ranPast = stream
      let offset = payloadOffset(stream, record.pos)
      let remaining = Int(record.end - record.pos)
      let id = attribute.id
      throw DecodeError(code: "truncated", offset: offset) {
        .init(
          "\(id) needs \(count == 1 ? "1 byte" : "\(count) bytes") at offset \(offset), but only \(remaining) remain",
          expected: "\(count) bytes", found: "\(remaining) bytes")
      }
    }
  }

  mutating func readUnsigned(_ stream: Int32, bytes: Int, little: Bool) -> UInt64 {
    let record = arena.streams[Int(stream)]
    let start = Int(record.pos)
    arena.streams[Int(stream)].pos += Int32(bytes)
    var value: UInt64 = 0
    if record.buffer == 0 {
      switch bytes {
      case 1: return UInt64(input[start])
      case 2:
        let raw = input.loadUnaligned(fromByteOffset: start, as: UInt16.self)
        return UInt64(little ? UInt16(littleEndian: raw) : UInt16(bigEndian: raw))
      case 4:
        let raw = input.loadUnaligned(fromByteOffset: start, as: UInt32.self)
        return UInt64(little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
      default:
        let raw = input.loadUnaligned(fromByteOffset: start, as: UInt64.self)
        return little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
      }
    }
    for offset in 0..<bytes {
      let byte = UInt64(arena.derived[start + offset])
      value = little ? value | (byte << (8 * UInt64(offset))) : (value << 8) | byte
    }
    return value
  }

  /// Kaitai's bit reading: big-endian bits fill from each byte's top,
  /// little-endian from its bottom; a byte-aligned read after them drops
  /// what is left of the byte.
  private mutating func readBits(_ stream: Int32, count: Int, little: Bool, _ attribute: KsAttributePlan)
    throws(DecodeError) -> UInt64
  {
    var record = arena.streams[Int(stream)]
    let bitsNeeded = count - Int(record.bitCount)
    var result: UInt64 = 0
    if little {
      if bitsNeeded > 0 {
        let bytesNeeded = (bitsNeeded - 1) / 8 + 1
        try need(bytesNeeded, attribute, stream)
        var raw: UInt64 = 0
        for offset in 0..<bytesNeeded {
          raw |= UInt64(byte(record.buffer, record.pos + Int32(offset))) << (8 * UInt64(offset))
        }
        record.pos += Int32(bytesNeeded)
        let newBits = bitsNeeded >= 64 ? 0 : raw >> UInt64(bitsNeeded)
        result = (raw << UInt64(record.bitCount)) | record.bits
        record.bits = newBits
      } else {
        result = record.bits
        record.bits = count >= 64 ? 0 : record.bits >> UInt64(count)
      }
      record.bitCount = Int32((-bitsNeeded) & 7)
      if count < 64 { result &= (UInt64(1) << UInt64(count)) - 1 }
    } else {
      let bitsLeft = (-bitsNeeded) & 7
      if bitsNeeded > 0 {
        let bytesNeeded = (bitsNeeded - 1) / 8 + 1
        try need(bytesNeeded, attribute, stream)
        var raw: UInt64 = 0
        for offset in 0..<bytesNeeded {
          raw = (raw << 8) | UInt64(byte(record.buffer, record.pos + Int32(offset)))
        }
        record.pos += Int32(bytesNeeded)
        let newBits = raw
        result = (raw >> UInt64(bitsLeft)) | (bitsNeeded >= 64 ? 0 : record.bits << UInt64(bitsNeeded))
        record.bits = newBits
      } else {
        result = record.bits >> UInt64(-bitsNeeded)
      }
      record.bitCount = Int32(bitsLeft)
      record.bits &= bitsLeft == 0 ? 0 : (UInt64(1) << UInt64(bitsLeft)) - 1
      if count < 64 { result &= (UInt64(1) << UInt64(count)) - 1 }
    }
    arena.streams[Int(stream)] = record
    return result
  }

  /// `contents`: the bytes there are compared first, so a frame that is
  /// not this protocol's says so before it is found short.
  private mutating func readContents(_ expected: [UInt8], _ attribute: KsAttributePlan, _ stream: Int32)
    throws(DecodeError) -> (KsValue, KsRange)
  {
    let record = arena.streams[Int(stream)]
    let available = min(expected.count, Int(record.end - record.pos))
    for index in 0..<available {
      let found = byte(record.buffer, record.pos + Int32(index))
      guard found == expected[index] else {
        let offset = payloadOffset(stream, record.pos + Int32(index))
        let (id, wanted) = (attribute.id, expected[index])
        throw DecodeError(code: attribute.keys.error ?? "bad-contents", offset: offset) {
          .init(
            "\(id) byte at offset \(offset) is 0x\(Hex.spaced([found])); expected 0x\(Hex.spaced([wanted]))",
            expected: Hex.spaced([wanted]), found: Hex.spaced([found]))
        }
      }
    }
    try need(expected.count, attribute, stream)
    arena.streams[Int(stream)].pos += Int32(expected.count)
    let slice = KsSlice(buffer: record.buffer, start: record.pos, end: record.pos + Int32(expected.count))
    return (.bytes(slice), payload(stream, slice.start, slice.end))
  }

  // MARK: Sized reads

  /// The bytes a size plan takes (terminated, padded, processed): a
  /// slice, and where it lies in the payload.
  mutating func take(
    _ size: KsSizePlan, _ attribute: KsAttributePlan, object: Int32, stream: Int32, local: KsLocal
  ) throws(DecodeError) -> (KsSlice, KsRange) {
    alignToByte(stream)
    let record = arena.streams[Int(stream)]
    var start = record.pos
    var end: Int32
    var next: Int32
    switch size.kind {
    case .expression(let code):
      let count = try evalInteger(code, object, local)
      let remaining = Int64(record.end - record.pos)
      guard count >= 0, count <= remaining else {
        ranPast = stream
        let offset = count < 0 ? payloadOffset(stream, record.pos) : payloadOffset(stream, record.end)
        let id = attribute.id
        let at = payloadOffset(stream, record.pos)
        throw DecodeError(code: attribute.keys.error ?? "truncated", offset: offset) {
          .init(
            count < 0
              ? "\(id) has a size of \(count)"
              : "\(id) needs \(count) bytes at offset \(at), but only \(remaining) remain",
            expected: "\(count) bytes", found: "\(remaining) bytes")
        }
      }
      end = record.pos + Int32(count)
      next = end
    case .eos:
      end = record.end
      next = end
    case .terminated:
      let terminator = size.terminator ?? 0
      var index = record.pos
      while index < record.end, byte(record.buffer, index) != terminator { index += 1 }
      if index < record.end {
        end = size.include ? index + 1 : index
        next = size.consume ? index + 1 : index
      } else {
        guard !size.eosError else {
          ranPast = stream
          let offset = payloadOffset(stream, record.end)
          let id = attribute.id
          throw DecodeError(code: attribute.keys.error ?? "truncated", offset: offset) {
            .init("\(id) has no terminator 0x\(Hex.spaced([terminator])) before the end at offset \(offset)")
          }
        }
        end = record.end
        next = end
      }
    }
    arena.streams[Int(stream)].pos = next
    let range = payload(stream, start, next)
    if case .terminated = size.kind {
    } else {
      if let pad = size.padRight {
        while end > start, byte(record.buffer, end - 1) == pad { end -= 1 }
      }
      if let terminator = size.terminator {
        var index = start
        while index < end, byte(record.buffer, index) != terminator { index += 1 }
        if index < end { end = size.include ? index + 1 : index }
      }
    }
    var slice = KsSlice(buffer: record.buffer, start: start, end: end)
    if let process = size.process {
      slice = try self.process(process, slice, attribute, object: object, local: local, range: range)
      start = slice.start
    }
    return (slice, range)
  }

  /// Text as UTF-8: UTF-8 and ASCII as they are (invalid UTF-8 a
  /// warning), other encodings decoded into the derived bytes.
  private mutating func text(_ raw: KsSlice, encoding: String, _ attribute: KsAttributePlan, _ range: KsRange)
    throws(DecodeError) -> KsSlice
  {
    switch encoding {
    case "UTF-8", "ASCII":
      do {
        var valid = true
        if raw.buffer == 0 {
          valid =
            String(
              validating: UnsafeRawBufferPointer(rebasing: input[Int(raw.start)..<Int(raw.end)]),
              as: UTF8.self) != nil
        } else {
          valid = String(validating: arena.derived[Int(raw.start)..<Int(raw.end)], as: UTF8.self) != nil
        }
        if !valid {
          let id = attribute.id
          try warn("invalid-utf8", range) { "\(id) at offset \(range.start) is not valid UTF-8" }
        }
      }
      return raw
    default:
      var bytes: [UInt8] = []
      for index in raw.start..<raw.end { bytes.append(byte(raw.buffer, index)) }
      let decoded = Self.text(bytes, encoding: encoding)
      let start = Int32(arena.derived.count)
      arena.derived.append(contentsOf: decoded.utf8)
      return KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count))
    }
  }

  /// Bytes as text of a Kaitai encoding (UTF-8 and ASCII, ISO-8859-1, UTF-16LE/BE).
  static func text(_ bytes: [UInt8], encoding: String) -> String {
    switch encoding {
    case "ISO-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
    case "UTF-16LE", "UTF-16BE":
      let little = encoding == "UTF-16LE"
      var units: [UInt16] = []
      var index = 0
      while index + 1 < bytes.count {
        let (a, b) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
        units.append(little ? a | (b << 8) : (a << 8) | b)
        index += 2
      }
      return String(decoding: units, as: UTF16.self)
    default: return String(decoding: bytes, as: UTF8.self)
    }
  }
}
