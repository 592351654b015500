/// Optional, for the fuzzer: a codec that adopts it puts a mutated frame's
/// own bookkeeping right again (a length byte, a check byte), so that
/// mutants get past its first checks and reach what follows them. The
/// fuzzer knows no protocol's layout: this is how it learns one.
public protocol FrameResealing {
  /// Makes `frame`'s lengths and checks agree with the rest of its bytes,
  /// as far as it can (any bytes at all may come in; never trap). `choice`
  /// is a random number, for a codec with more than one way to seal (a
  /// check's variants).
  func reseal(_ frame: inout [UInt8], choice: UInt64)
}
