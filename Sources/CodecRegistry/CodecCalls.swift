import PacketKit

/// One codec's per-message entry points with its concrete type bound.
///
/// Calling a method on an element of `[any FrameCodec]` copies the
/// existential out through its value witnesses and destroys the copy after,
/// on every message. These closures are made where the registry names the
/// concrete type: a call is an indirect call into code specialised for it.
struct CodecCalls: Sendable {
  let codec: any FrameCodec
  let probe: @Sendable (UnsafeRawBufferPointer) -> Int
  let cleanKind: @Sendable (UnsafeRawBufferPointer) -> Int?
  let cleanFields: @Sendable (UnsafeRawBufferPointer, inout FlatFields) -> Bool
  let decodeFrame: @Sendable (UnsafeRawBufferPointer) -> FrameDecode

  init<Codec: FrameCodec>(_ codec: Codec) {
    self.codec = codec
    probe = { codec.probe($0) }
    cleanKind = { codec.cleanKind($0) }
    cleanFields = { codec.cleanFields($0, into: &$1) }
    decodeFrame = { codec.decodeFrame($0) }
  }
}
