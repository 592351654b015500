/// One codec's entry points, bound to its concrete type: what the pipeline
/// calls per message and the fuzzer per input, without copying the codec
/// and without reference counting.
///
/// `CodecCalls.bound(MyCodec())` makes a subclass for the concrete type
/// where it is called, and a `CodecSet` calls it through an unretained
/// reference: one virtual call into the codec's own code, where an element
/// of `[any FrameCodec]` is copied out and run generically per message.
public class CodecCalls: @unchecked Sendable {
  /// The codec, type-erased, for everything that is not per message.
  public var codec: any FrameCodec { preconditionFailure("CodecCalls is abstract: use CodecCalls.bound") }
  /// `codec.info.name`, once.
  public let name: String

  @usableFromInline
  init(name: String) {
    self.name = name
  }

  /// The calls for `codec`.
  @inlinable
  public static func bound<Codec: FrameCodec>(_ codec: Codec) -> CodecCalls { Bound(codec) }

  /// The calls for a codec with fast paths.
  @inlinable
  public static func bound<Codec: FastFrameCodec>(_ codec: Codec) -> CodecCalls { FastBound(codec) }

  public func probe(_ bytes: UnsafeRawBufferPointer) -> Int { preconditionFailure("abstract") }
  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { preconditionFailure("abstract") }
  public func cleanFields(_ bytes: UnsafeRawBufferPointer, _ fields: inout FlatFields) -> Bool {
    preconditionFailure("abstract")
  }
  public func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode { preconditionFailure("abstract") }
  public func selfCheck(_ bytes: UnsafeRawBufferPointer) -> SelfCheck { preconditionFailure("abstract") }
  public func craftCheck(_ kind: String, values: CraftValues) -> CraftCheck {
    preconditionFailure("abstract")
  }
  /// `craft` of the message kind from values (the fuzzer's seeds).
  public func craft(_ kind: String, values: CraftValues) -> [UInt8]? { preconditionFailure("abstract") }

  /// Any codec: its own decode, no fast paths.
  @usableFromInline
  class Bound<Codec: FrameCodec>: CodecCalls, @unchecked Sendable {
    @usableFromInline let typed: Codec

    @inlinable
    init(_ codec: Codec) {
      typed = codec
      super.init(name: codec.info.name)
    }

    @inlinable override var codec: any FrameCodec { typed }
    @inlinable override func probe(_ bytes: UnsafeRawBufferPointer) -> Int {
      typed.probe(ByteView(unsafeBytes: bytes))
    }
    @inlinable override func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { nil }
    @inlinable override func cleanFields(_ bytes: UnsafeRawBufferPointer, _ fields: inout FlatFields) -> Bool
    {
      false
    }
    @inlinable override func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode {
      typed.decodeFrame(ByteView(unsafeBytes: bytes))
    }
    @inlinable override func selfCheck(_ bytes: UnsafeRawBufferPointer) -> SelfCheck {
      typed.selfCheck(ByteView(unsafeBytes: bytes))
    }
    @inlinable override func craftCheck(_ kind: String, values: CraftValues) -> CraftCheck {
      typed.craftCheck(kind, values: values)
    }
    @inlinable override func craft(_ kind: String, values: CraftValues) -> [UInt8]? {
      guard let message = try? typed.message(kind, from: values) else { return nil }
      return try? typed.craftBytes(message, values: values)
    }
  }

  /// A codec with fast paths: counting and flat fields without decoding.
  @usableFromInline
  final class FastBound<Codec: FastFrameCodec>: Bound<Codec>, @unchecked Sendable {
    @inlinable override init(_ codec: Codec) { super.init(codec) }
    @inlinable override func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { typed.cleanKind(bytes) }
    @inlinable override func cleanFields(_ bytes: UnsafeRawBufferPointer, _ fields: inout FlatFields) -> Bool
    {
      typed.cleanFields(bytes, into: &fields)
    }
    // Through the requirements, so the codec's own module's code runs.
    @inlinable override func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode {
      typed._decodeFrame(ByteView(unsafeBytes: bytes))
    }
    @inlinable override func selfCheck(_ bytes: UnsafeRawBufferPointer) -> SelfCheck {
      typed._selfCheck(ByteView(unsafeBytes: bytes))
    }
    @inlinable override func craftCheck(_ kind: String, values: CraftValues) -> CraftCheck {
      typed._craftCheck(kind, values: values)
    }
  }
}
