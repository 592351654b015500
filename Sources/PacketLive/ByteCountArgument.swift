/// A size as a person types it: `64MB`, `512KB`, `1GB` (powers of 1024,
/// as memory is counted) or plain bytes.
package struct ByteCountArgument: Equatable, Sendable {
  package var bytes: Int

  package init(bytes: Int) { self.bytes = bytes }

  package init?(argument: String) {
    let text = argument.uppercased()
    let units: [(String, Int)] = [
      ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10),
      ("B", 1),
    ]
    var scale = 1
    var number = Substring(text)
    for (suffix, size) in units where text.hasSuffix(suffix) {
      scale = size
      number = text.dropLast(suffix.count)
      break
    }
    guard let value = Int(number), value >= 0 else { return nil }
    let (product, overflow) = value.multipliedReportingOverflow(by: scale)
    guard !overflow else { return nil }
    bytes = product
  }

  package var defaultValueDescription: String { Self.text(bytes) }

  /// "64MB", "512KB", "1000 bytes": the largest unit that divides evenly.
  package static func text(_ bytes: Int) -> String {
    if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30)GB" }
    if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20)MB" }
    if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10)KB" }
    return "\(bytes) bytes"
  }
}
