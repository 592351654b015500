/// The bytes of one payload as a codec reads them: every read is checked
/// against the length, so a codec cannot read past its input, whatever the
/// input says. Valid for the call it is given to; copy what must outlive it
/// (`bytes`, `reader().readBytes`).
///
/// A view, not a copy: the capture pipeline hands a codec the bytes where
/// they lie (in libpcap's buffer, in a reassembled stream).
public struct ByteView {
  @usableFromInline let storage: UnsafeRawBufferPointer

  /// A view of bytes the caller keeps alive for as long as the view is used.
  @inlinable
  public init(unsafeBytes storage: UnsafeRawBufferPointer) {
    self.storage = storage
  }

  @inlinable public var count: Int { storage.count }
  @inlinable public var isEmpty: Bool { storage.isEmpty }

  /// The byte at `index`; an index outside the view stops the program, as
  /// an array's does (a decoder reads through `reader()`, which throws instead).
  @inlinable
  public subscript(index: Int) -> UInt8 {
    precondition(index >= 0 && index < storage.count, "ByteView index \(index) outside 0..<\(storage.count)")
    return storage[index]
  }

  /// The bytes in `range`, as a view; a range outside the view stops the program.
  @inlinable
  public subscript(range: Range<Int>) -> ByteView {
    precondition(range.lowerBound >= 0 && range.upperBound <= storage.count, "ByteView range outside the view")
    return ByteView(unsafeBytes: UnsafeRawBufferPointer(rebasing: storage[range]))
  }

  /// A cursor that reads fields in order and throws a `DecodeError` naming
  /// the offset when the input is too short.
  @inlinable
  public func reader(at offset: Int = 0) -> ByteReader { ByteReader(storage, offset: offset) }

  /// A copy of the bytes.
  public var bytes: [UInt8] { [UInt8](storage) }

  public func starts(with prefix: [UInt8]) -> Bool { storage.starts(with: prefix) }

  /// The bytes as a raw buffer, for code that needs no checks to be safe
  /// (the built-in codecs' fast paths, C kernels). The buffer is valid
  /// only inside `body`.
  @inlinable
  public func withUnsafeBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try body(storage)
  }

  /// `body` with a view of `bytes`.
  @inlinable
  public static func of<Result, Failure: Error>(
    _ bytes: [UInt8], _ body: (ByteView) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try bytes.withUnsafeBytes { raw in
      Swift.Result { () throws(Failure) -> Result in try body(ByteView(unsafeBytes: raw)) }
    }.get()
  }
}
