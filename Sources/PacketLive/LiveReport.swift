import PacketDecode

/// What a live command prints when it stops (listen/capture summary, send
/// report): text lines or one JSON object, where the output settings say.
package protocol LiveReport {
  func lines() -> [String]
  func json() -> [UInt8]
}

extension LiveReport {
  package func write(options: LiveOutputSettings, out: OutputWriter) {
    if options.summaryAsJSON {
      out.bytes(json())
      out.line()
      out.flush()
      return
    }
    let target = options.summaryGoesToStandardError ? OutputWriter.standardError : out
    for line in lines() { target.line(line) }
    target.flush()
  }
}
