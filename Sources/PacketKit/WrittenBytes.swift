extension Array where Element == UInt8 {
  /// Bytes written by `body` into room for `count`; `body` returns how many
  /// it wrote (at most `count`), and those are the array.
  ///
  /// A small array is written on the stack and copied into an array of its
  /// size: `init(unsafeUninitializedCapacity:)` runs unspecialised and
  /// costs more than the allocation itself.
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
