#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Buffers of plain values (no reference counting, no deinitialisation)
/// from `malloc`, `realloc` and `free`, for the buffers made per message:
/// a JSON tape's entries, a writer's bytes.
///
/// `UnsafeMutablePointer.allocate` goes through `posix_memalign` whatever
/// the alignment and cannot grow in place as `realloc` can; `malloc`'s
/// 16-byte alignment suits every type kept here.
public enum PlainMemory {
  /// Room for `capacity` values of `T`, uninitialised. Traps when memory runs out, as `allocate` does.
  @inlinable
  public static func allocate<T: BitwiseCopyable>(_: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
    precondition(MemoryLayout<T>.alignment <= 16)
    guard let memory = malloc(max(capacity, 1) * MemoryLayout<T>.stride) else { fatalError("out of memory") }
    return memory.bindMemory(to: T.self, capacity: capacity)
  }

  /// `buffer` made room for `capacity` values, its first values kept (it may move).
  @inlinable
  public static func resize<T: BitwiseCopyable>(_ buffer: UnsafeMutablePointer<T>, capacity: Int)
    -> UnsafeMutablePointer<T>
  {
    guard let memory = realloc(buffer, max(capacity, 1) * MemoryLayout<T>.stride) else {
      fatalError("out of memory")
    }
    return memory.bindMemory(to: T.self, capacity: capacity)
  }

  @inlinable
  public static func free<T: BitwiseCopyable>(_ buffer: UnsafeMutablePointer<T>) {
    #if canImport(Darwin)
      Darwin.free(buffer)
    #elseif canImport(Musl)
      Musl.free(buffer)
    #else
      Glibc.free(buffer)
    #endif
  }
}
