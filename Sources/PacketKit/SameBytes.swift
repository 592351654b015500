#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension UnsafeRawBufferPointer {
  /// Whether `other` holds the same bytes, by `memcmp` (`elementsEqual`
  /// steps two iterators a byte at a time).
  @inlinable
  public func sameBytes(as other: UnsafeRawBufferPointer) -> Bool {
    guard count == other.count else { return false }
    guard count > 0, let left = baseAddress, let right = other.baseAddress else { return true }
    return memcmp(left, right, count) == 0
  }
}
