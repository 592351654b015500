import PacketKit

/// One codec's per-message entry points, called without copying the codec
/// and without reference counting.
///
/// Calling a method on an element of `[any FrameCodec]` copies the
/// existential out through its value witnesses and destroys the copy after,
/// on every message; closures stored per codec cost a retain and a release
/// of their context per call instead. A `CodecCalls` holds its codec with
/// the concrete type (`Bound`), and the registry calls it through an
/// unretained reference that the static registry keeps alive: one virtual
/// call into the codec's own witness, nothing copied, nothing counted.
class CodecCalls: @unchecked Sendable {
  /// The codec, type-erased, for everything that is not per message.
  var codec: any FrameCodec { preconditionFailure("CodecCalls is abstract: use CodecCalls.bound") }

  fileprivate init() {}

  /// The calls for `codec`, bound to its type where the registry names it.
  static func bound<Codec: FrameCodec>(_ codec: Codec) -> CodecCalls { Bound(codec) }

  func probe(_ bytes: UnsafeRawBufferPointer) -> Int { preconditionFailure("abstract") }
  func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { preconditionFailure("abstract") }
  func cleanFields(_ bytes: UnsafeRawBufferPointer, _ fields: inout FlatFields) -> Bool {
    preconditionFailure("abstract")
  }
  func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode { preconditionFailure("abstract") }

  /// The immutable (`let`, and `Codec: Sendable`) subclass that does the work.
  private final class Bound<Codec: FrameCodec>: CodecCalls, @unchecked Sendable {
    let typed: Codec

    init(_ codec: Codec) {
      typed = codec
    }

    override var codec: any FrameCodec { typed }
    override func probe(_ bytes: UnsafeRawBufferPointer) -> Int { typed.probe(bytes) }
    override func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { typed.cleanKind(bytes) }
    override func cleanFields(_ bytes: UnsafeRawBufferPointer, _ fields: inout FlatFields) -> Bool {
      typed.cleanFields(bytes, into: &fields)
    }
    override func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode { typed.decodeFrame(bytes) }
  }
}
