import BuiltinCodecs
import PacketKit
import Testing

@testable import PacketDecode

/// Summary lines leave out the fields a plugin names as framing
/// (`CodecInfo.framingFields`), and only those: the renderer itself knows
/// no protocol's header.
@Suite struct SummaryFramingTests {
  /// A record of the codec's decode of `bytes`, as its tree.
  static func line(_ codec: String, _ bytes: [UInt8], framing: SummaryFraming) throws -> String {
    let index = try #require(BuiltinCodecs.set.index(named: codec))
    var record = DecodedRecord(frame: 1, time: 0, transport: "udp", payloadLength: bytes.count)
    record.result = bytes.withUnsafeBytes { BuiltinCodecs.set.decodeFrame(index, $0) }
    return SummaryRenderer.line(record, firstTime: 0, style: Style(enabled: false), framing: framing)
  }

  /// The telemetry vector of the protocol reference (§2): FAULT,
  /// DEADMAN_TIMEOUT, age 200 ms, 7400 mV.
  static let telemetry: [UInt8] = [0x01, 0x10, 0x08, 0x00, 0x02, 0x01, 0xC8, 0x00, 0xE8, 0x1C, 0x00, 0x00]
  /// The Rallie response vector (§3): code 1 with its XOR check 7C.
  static let response: [UInt8] = [0x5A, 0xA5, 0x82, 0x01, 0x7C]

  @Test func theBuiltInPluginsNameTheirFramingAndTheLineLeavesItOut() throws {
    let framing = SummaryFraming(BuiltinCodecs.set)
    let legctrl = try Self.line("legctrl", Self.telemetry, framing: framing)
    #expect(legctrl.contains("state=FAULT error_code=DEADMAN_TIMEOUT last_cmd_age_ms=200 battery_mv=7400"))
    #expect(!legctrl.contains("version=") && !legctrl.contains("msg_type=") && !legctrl.contains("reserved="))
    let rallie = try Self.line("rallie", Self.response, framing: framing)
    #expect(rallie.contains("code=accepted"))
    #expect(!rallie.contains("magic=") && !rallie.contains("source=") && !rallie.contains("check="))
  }

  /// Without the plugins' word, the same lines show those fields: the
  /// knowledge is theirs, not the renderer's.
  @Test func withoutTheirWordTheFieldsShow() throws {
    let legctrl = try Self.line("legctrl", Self.telemetry, framing: .none)
    #expect(legctrl.contains("version=1") && legctrl.contains("msg_type="))
    let rallie = try Self.line("rallie", Self.response, framing: .none)
    #expect(rallie.contains("magic=") && rallie.contains("source="))
  }
}
