import CZlib
import PacketKit

extension KsRunner {
  /// Inflated `zlib` data is refused past this (a small frame must not
  /// decode to gigabytes).
  static let maxInflated = 1 << 20

  /// `process`: the bytes made anew into the derived buffer.
  mutating func process(
    _ process: KsProcessPlan, _ slice: KsSlice, _ attribute: KsAttributePlan, object: Int32, local: KsLocal,
    range: KsRange
  ) throws(DecodeError) -> KsSlice {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(slice.count)
    for index in slice.start..<slice.end { bytes.append(byte(slice.buffer, index)) }
    switch process {
    case .xor(let code):
      switch try eval(code, object, local) {
      case .integer(let key):
        let keyByte = UInt8(truncatingIfNeeded: key)
        for index in bytes.indices { bytes[index] ^= keyByte }
      case .bytes(let key) where key.count > 0:
        var keyBytes: [UInt8] = []
        for index in key.start..<key.end { keyBytes.append(byte(key.buffer, index)) }
        for index in bytes.indices { bytes[index] ^= keyBytes[index % keyBytes.count] }
      default:
        throw DecodeError(code: "bad-process", offset: Int(range.start)) { .init("xor's key is empty") }
      }
    case .rol(let code), .ror(let code):
      var amount = Int(((try evalInteger(code, object, local)) % 8 + 8) % 8)
      if case .ror = process { amount = (8 - amount) % 8 }
      if amount != 0 {
        for index in bytes.indices {
          bytes[index] = (bytes[index] << UInt8(amount)) | (bytes[index] >> UInt8(8 - amount))
        }
      }
    case .zlib:
      guard let inflated = Self.inflate(bytes, limit: Self.maxInflated) else {
        let id = attribute.id
        throw DecodeError(code: attribute.keys.error ?? "bad-zlib", offset: Int(range.start)) {
          .init("\(id) is not zlib data, or inflates past \(Self.maxInflated) bytes")
        }
      }
      bytes = inflated
    }
    let start = Int32(arena.derived.count)
    guard arena.derived.count + bytes.count <= Self.maxInflated * 4 else {
      throw DecodeError(code: "too-complex", offset: Int(range.start)) { .init("processed data past 4 MiB") }
    }
    arena.derived.append(contentsOf: bytes)
    return KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count))
  }

  /// zlib-format data inflated, or nil (corrupt, or past `limit`).
  static func inflate(_ input: [UInt8], limit: Int) -> [UInt8]? {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
      stream.deinitialize(count: 1)
      stream.deallocate()
    }
    guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16384)
    var input = input
    return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
      stream.pointee.next_in = source.baseAddress
      stream.pointee.avail_in = uInt(source.count)
      while true {
        let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
          stream.pointee.next_out = buffer.baseAddress
          stream.pointee.avail_out = uInt(buffer.count)
          return CZlib.inflate(stream, Z_NO_FLUSH)
        }
        let produced = chunk.count - Int(stream.pointee.avail_out)
        guard output.count + produced <= limit else { return nil }
        output.append(contentsOf: chunk[0..<produced])
        if status == Z_STREAM_END { return output }
        guard status == Z_OK, produced > 0 || stream.pointee.avail_in > 0 else { return nil }
      }
    }
  }
}
