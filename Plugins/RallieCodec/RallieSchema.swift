import PacketKit

/// The message kinds and fields of Rallie v0.3, in docs/protocols.md's names.
enum RallieSchema {
  static let commandLength = 10
  static let responseLength = 5

  static let upperWheel = FieldSchema(
    "upper_wheel", flag: "upper", kind: .integer, unit: "%", range: 0...100,
    help: "upper wheel speed in percent")

  static let lowerWheel = FieldSchema(
    "lower_wheel", flag: "lower", kind: .integer, unit: "%", range: 0...100,
    help: "lower wheel speed in percent")

  static let pitch = FieldSchema(
    "pitch", kind: .integer, unit: "°", range: 0...90, help: "launch pitch in degrees")

  static let yaw = FieldSchema(
    "yaw", kind: .integer, unit: "°", range: 0...90, help: "launch yaw in degrees")

  static let feed = FieldSchema(
    "feed", kind: .integer, unit: "%", range: 0...100, help: "ball feed rate in percent")

  static let control = FieldSchema(
    "control",
    kind: .enumeration([
      .init("stop", Int64(RallieControl.stop)), .init("start", Int64(RallieControl.start)),
    ]),
    default: .enumeration(name: "stop", raw: Int64(RallieControl.stop)),
    help: "start or stop the machine (--start, --stop)", casesAreFlags: true)

  static let code = FieldSchema(
    "code",
    kind: .enumeration([
      .init("rejected", Int64(RallieResponseCode.rejected)),
      .init("accepted", Int64(RallieResponseCode.accepted)),
      .init("completed", Int64(RallieResponseCode.completed)),
    ]),
    default: .enumeration(name: "accepted", raw: Int64(RallieResponseCode.accepted)),
    help: "the machine's answer (--rejected, --accepted, --completed)", casesAreFlags: true)

  /// Not on the wire as such: it picks how the check byte is computed.
  static let checksum = FieldSchema(
    "checksum",
    kind: .enumeration(RallieCheckVariant.allCases.map { .init($0.rawValue, $0.raw) }),
    default: .enumeration(name: RallieCheckVariant.xor.rawValue, raw: RallieCheckVariant.xor.raw),
    help: "check byte: xor (v0.3) or modbus16lo (low byte of CRC-16/MODBUS, later firmware)",
    role: .craftParameter)

  static let info = CodecInfo(
    name: "rallie", title: "Rallie tennis ball machine, protocol v0.3",
    transport: "BLE GATT (write …FF02, notify …FF03 on later firmware; UUIDs vary by build)",
    messages: [
      MessageSchema(
        "command", craftNames: ["rallie"],
        summary: "command: wheel speeds, aim, feed and start/stop; sent every 2…9 s",
        direction: .appToDevice,
        fields: [upperWheel, lowerWheel, pitch, yaw, feed, control, checksum]),
      MessageSchema(
        "response", craftNames: ["rallie-response"],
        summary: "response: rejected, accepted (started) or completed",
        direction: .deviceToApp, fields: [code, checksum]),
    ],
    notes: [
      "command 10 bytes: 5A A5 83 upper lower pitch yaw feed control check",
      "response 5 bytes: 5A A5 82 code check",
      "check: XOR of the preceding bytes (v0.3) or the low byte of CRC-16/MODBUS (later firmware); "
        + "the decoder accepts either and reports which",
    ],
    gattCharacteristics: [
      // Later firmware; older builds used other UUIDs: map them with --ble-map.
      "5833ff02-9b8b-5191-6142-22a4536ef123",  // write (with response)
      "5833ff03-9b8b-5191-6142-22a4536ef123",  // notify
    ],
    hasCheckByte: true,
    maxPayloadLength: RallieSchema.commandLength,
    examples: [
      "craft": ["craft rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start"],
      "decode": ["decode --hex '5AA58332322D2D32004E'"],
      "fuzz": ["fuzz --codec rallie --iterations 1000000 --seed 42"],
    ],
    framingFields: ["magic", "source", "check"],
    // The protocol reference's vectors (§3): a command under either
    // check, and the three responses under either.
    vectors: [
      ("command", [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x4E]),
      ("command", [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x41]),
      ("response", [0x5A, 0xA5, 0x82, 0x00, 0x7D]), ("response", [0x5A, 0xA5, 0x82, 0x01, 0x7C]),
      ("response", [0x5A, 0xA5, 0x82, 0x02, 0x7F]), ("response", [0x5A, 0xA5, 0x82, 0x00, 0x62]),
      ("response", [0x5A, 0xA5, 0x82, 0x01, 0xA3]), ("response", [0x5A, 0xA5, 0x82, 0x02, 0xE3]),
    ])
}
