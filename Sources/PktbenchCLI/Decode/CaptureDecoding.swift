import PacketKit

extension DecodeCommand {
  /// Decodes capture files. (Filled in with the capture pipeline.)
  func decodeCaptures(out: OutputWriter) throws {
    throw CommandFailure("capture decoding is not built yet")
  }
}
