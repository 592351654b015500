import PacketKit

/// A clean message's codec and flat fields (`FrameCodec.cleanFields`), as
/// summary lines and ndjson write it. One instance per pipeline, refilled
/// for each message: a record refers to it only while a sink writes it.
final class FlatMessage {
  var codec = ""
  /// The fields live out of line and are read and filled in place through
  /// the pointer: read as a class property, the whole struct (some 700
  /// bytes) would be copied on every access.
  let fields: UnsafeMutablePointer<FlatFields>

  init() {
    fields = .allocate(capacity: 1)
    fields.initialize(to: FlatFields())
  }

  deinit {
    fields.deinitialize(count: 1)
    fields.deallocate()
  }
}
