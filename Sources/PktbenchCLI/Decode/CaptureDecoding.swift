extension DecodeCommand {
  func decodeCaptures(out: OutputWriter) throws { throw CommandFailure("not yet") }
}
