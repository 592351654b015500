/// A small, fast, seedable generator: the same seed gives the same run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  @usableFromInline var state: UInt64

  public init(seed: UInt64) { state = seed }

  @inlinable
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A value in 0..<bound (bound > 0), cheaper than the generic path: the
  /// high word of bound × a random word (Lemire's method, without the
  /// rejection step; its bias, under bound / 2^64, does not matter here),
  /// not a 64-bit division.
  @inlinable
  public mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: UInt64(max(bound, 1)).multipliedFullWidth(by: next()).high)
  }

  @inlinable
  public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
    below(denominator) < numerator
  }
}
