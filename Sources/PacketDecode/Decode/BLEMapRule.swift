import PacketKit

/// `--ble-map 0x0012=CODEC` (any connection) or `--ble-map 0x0040:0x0012=CODEC`
/// (one connection): the values of that ATT handle go to that codec, for
/// captures that do not hold the GATT discovery.
struct BLEMapRule: Equatable {
  var connection: UInt16?
  var handle: UInt16
  var codec: String

  static func parse(_ text: String, codecs: CodecSet) throws -> BLEMapRule {
    let usage =
      "expected [CONNECTION:]HANDLE=CODEC, e.g. 0x0012=\(HelpExamples.bleCodec) or 0x0040:0x0012=\(HelpExamples.bleCodec)"
    guard let equals = text.firstIndex(of: "=") else {
      throw CommandFailure("--ble-map '\(text)': \(usage)")
    }
    let codec = text[text.index(after: equals)...].lowercased()
    guard codecs.named(codec) != nil else {
      throw CommandFailure(
        "--ble-map '\(text)': unknown codec '\(codec)'; known: \(codecs.names.joined(separator: ", "))")
    }
    let handles = text[..<equals].split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(handles.count), let handle = number(handles[handles.count - 1]) else {
      throw CommandFailure("--ble-map '\(text)': \(usage)")
    }
    var connection: UInt16?
    if handles.count == 2 {
      guard let parsed = number(handles[0]) else { throw CommandFailure("--ble-map '\(text)': \(usage)") }
      connection = parsed
    }
    return BLEMapRule(connection: connection, handle: handle, codec: codec)
  }

  private static func number(_ text: Substring) -> UInt16? {
    let lower = text.lowercased()
    if lower.hasPrefix("0x") { return UInt16(lower.dropFirst(2), radix: 16) }
    return UInt16(lower)
  }
}
