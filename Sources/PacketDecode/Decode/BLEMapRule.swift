import PacketKit

/// `--ble-map 0x0012=CODEC` (any connection) or `--ble-map 0x0040:0x0012=CODEC`
/// (one connection): the values of that ATT handle go to that codec, for
/// captures that do not hold the GATT discovery.
package struct BLEMapRule: Equatable {
  package var connection: UInt16?
  package var handle: UInt16
  package var codec: String

  package static func parse(_ text: String, codecs: CodecSet) throws -> BLEMapRule {
    let example = exampleCodec(in: codecs)
    let usage = "expected [CONNECTION:]HANDLE=CODEC, e.g. 0x0012=\(example) or 0x0040:0x0012=\(example)"
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

  /// A codec that lives on BLE, for `--ble-map` examples.
  package static func exampleCodec(in codecs: CodecSet) -> String {
    codecs.all.first { !$0.info.gattCharacteristics.isEmpty }?.name ?? "CODEC"
  }

  private static func number(_ text: Substring) -> UInt16? {
    let lower = text.lowercased()
    if lower.hasPrefix("0x") { return UInt16(lower.dropFirst(2), radix: 16) }
    return UInt16(lower)
  }
}
