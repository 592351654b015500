/// The bytes a spec codec decodes, as the interpreter reads them: a count
/// and bounds-checked access. The adapter to `FrameCodec` makes one from
/// whatever view of the payload the codec contract hands over, so the
/// interpreter does not depend on that contract's byte type.
struct SpecBytes {
  private let base: UnsafeRawBufferPointer

  /// Valid while the buffer it was made from is.
  init(_ base: UnsafeRawBufferPointer) {
    self.base = base
  }

  var count: Int { base.count }

  /// The byte at `index`; the interpreter checks `index < count` first
  /// (reads are bounded by the layout's size checks).
  @inline(__always)
  subscript(index: Int) -> UInt8 {
    precondition(index >= 0 && index < base.count, "spec interpreter read past the payload")
    return base[index]
  }

  func copy(_ range: Range<Int>) -> [UInt8] {
    precondition(
      range.lowerBound >= 0 && range.upperBound <= base.count, "spec interpreter copy past the payload")
    return [UInt8](UnsafeRawBufferPointer(rebasing: base[range]))
  }

  /// The bytes as a buffer, for the JSON parser and checksums.
  func withBuffer<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result)
    throws(Failure)
    -> Result
  {
    try body(base)
  }

  func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
    precondition(
      range.lowerBound >= 0 && range.upperBound <= base.count, "spec interpreter slice past the payload")
    return UnsafeRawBufferPointer(rebasing: base[range])
  }
}
