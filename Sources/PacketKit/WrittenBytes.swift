extension Array where Element == UInt8 {
  /// Bytes written by `body` into room for `count`; `body` returns how many
  /// it wrote (at most `count`), and those are the array.
  ///
  /// `init(unsafeUninitializedCapacity:initializingWith:)` allocates through
  /// the standard library's unspecialised code, which looks up the array
  /// storage's runtime type on every call: about 320 instructions, more
  /// than the allocation itself. A small array is written on the stack
  /// and copied into an array of its size instead (`Array(buffer)` is
  /// specialised here, and the copy is a `memcpy` of at most 1 KiB).
  @inlinable
  public static func written(count: Int, by body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8] {
    guard count > 0 else { return [] }
    guard count <= smallWrite else {
      return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        initialized = Swift.min(Swift.max(body(buffer), 0), count)
      }
    }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
      let written = Swift.min(Swift.max(body(buffer), 0), count)
      return Array(UnsafeBufferPointer(rebasing: buffer[..<written]))
    }
  }

  /// The largest array `written` makes on the stack first.
  @inlinable static var smallWrite: Int { 1024 }
}
