/// Session ids as the server makes them (`UUID().uuidString`: upper-case,
/// version 4), drawn from a seed so an emulator run is deterministic.
struct AerieSessionIds: Sendable {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  /// The next id: SplitMix64, two draws for the 16 bytes.
  mutating func next() -> String {
    var bytes: [UInt8] = []
    for _ in 0..<2 {
      let word = draw()
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
      }
    }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = bytes.map { byte in
      let digits = Array("0123456789ABCDEF")
      return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
    return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
  }

  private mutating func draw() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
