import PacketKit

/// The message kinds and fields of LegCtrl, in docs/protocols.md's names.
enum LegCtrlSchema {
  /// `state`'s names, as literals: flat fields carry them without a
  /// String, and the schema's cases are made from them.
  static func stateName(_ raw: UInt8) -> StaticString? {
    switch raw {
    case 0: "DISARMED"
    case 1: "ARMED"
    case 2: "FAULT"
    default: nil
    }
  }

  /// `error_code`'s names, as literals (see `stateName`).
  static func errorCodeName(_ raw: UInt8) -> StaticString? {
    switch raw {
    case 0: "NONE"
    case 1: "DEADMAN_TIMEOUT"
    case 2: "LOW_BATTERY"
    case 3: "I2C_FAULT"
    case 4: "INVALID_CMD"
    case 0xFF: "UNKNOWN"
    default: nil
    }
  }

  /// The cases `name` knows, in raw-value order.
  private static func cases(_ name: (UInt8) -> StaticString?) -> [FieldSchema.EnumCase] {
    (0...255).compactMap { raw in name(UInt8(raw)).map { .init($0.description, Int64(raw)) } }
  }

  static let state = FieldSchema(
    "state", kind: .enumeration(cases(stateName)),
    default: .enumeration(name: "DISARMED", raw: 0),
    help: "controller state: disarmed, armed or fault")

  static let errorCode = FieldSchema(
    "error_code", flag: "error",
    kind: .enumeration(cases(errorCodeName)),
    default: .enumeration(name: "NONE", raw: 0),
    help: "last error: none, deadman-timeout, low-battery, i2c-fault, invalid-cmd, unknown")

  static let pulse = FieldSchema(
    "pulse_us", flag: "us", kind: .integer, unit: "µs", range: 500...2500,
    help: "servo channel 0 pulse width in microseconds (the firmware clamps to 500…2500)")

  static let lastCommandAge = FieldSchema(
    "last_cmd_age_ms", flag: "age-ms", kind: .integer, unit: "ms", range: 0...65535,
    default: .integer(0), help: "milliseconds since the last valid command (saturates at 65535)")

  static let battery = FieldSchema(
    "battery_mv", flag: "battery-mv", kind: .integer, unit: "mV", range: 0...65535,
    default: .integer(7400), help: "battery voltage in millivolts")

  // The messages, each written once: `info` lists them, `kind(of:)` and
  // the fast path name them from here, and `Kinds` finds their places.
  static let arm = MessageSchema(
    "arm", summary: "ARM: enable the servo outputs", direction: .appToDevice, fields: [])
  static let disarm = MessageSchema(
    "disarm", summary: "DISARM: disable the outputs, clear a FAULT", direction: .appToDevice, fields: [])
  static let setServoCh0 = MessageSchema(
    "set_servo_ch0", craftNames: ["servo"],
    summary: "SET_SERVO_CH0: servo pulse; repeated at 50 Hz as the deadman keep-alive",
    direction: .appToDevice, fields: [pulse])
  static let ping = MessageSchema("ping", summary: "PING: keep-alive", direction: .appToDevice, fields: [])
  static let telemetry = MessageSchema(
    "telemetry", summary: "TELEMETRY: state, error, command age, battery; 10 Hz notify",
    direction: .deviceToApp, fields: [state, errorCode, lastCommandAge, battery])

  /// Where each message sits in `info.messages`, looked up by name once:
  /// the fast path's kind indices follow the schema, not a position.
  struct Kinds: Sendable {
    let arm, disarm, setServoCh0, ping, telemetry: Int
    /// The message names as literals, by index (flat fields carry them).
    let names: [StaticString]
  }

  static let kinds: Kinds = {
    func index(_ message: MessageSchema) -> Int { info.messageIndex(named: message.name) ?? 0 }
    return Kinds(
      arm: index(arm), disarm: index(disarm), setServoCh0: index(setServoCh0), ping: index(ping),
      telemetry: index(telemetry), names: info.messages.map { $0.staticName ?? "unknown" })
  }()

  static let info = CodecInfo(
    name: "legctrl", title: "LegCtrl servo leg controller",
    transport: "BLE GATT (command …789abd, telemetry …789abe); also UDP",
    messages: [arm, disarm, setServoCh0, ping, telemetry],
    notes: [
      "4-byte little-endian header: version 01, msg_type, payload_len 0…8, reserved 00",
      "deadman: no valid command for 200 ms while ARMED trips FAULT / DEADMAN_TIMEOUT",
    ],
    gattCharacteristics: [
      "12345678-1234-1234-1234-123456789abd",  // command: write (without response)
      "12345678-1234-1234-1234-123456789abe",  // telemetry: notify
    ],
    maxPayloadLength: LegCtrlCodec.headerLength + LegCtrlCodec.maxPayloadLength,
    examples: [
      "craft": [
        "craft servo --us 1500 | nc -u 127.0.0.1 9000",
        "craft telemetry --state fault --error deadman-timeout --age-ms 200",
      ],
      "decode": [
        "decode --codec legctrl --hex '01 10 08 00 02 01 C8 00 E8 1C 00 00'",
        "decode capture.pcap --decode-as udp:9000=legctrl",
      ],
      "send": ["send udp://10.0.0.7:9000 servo --us 1500 --rate 50hz --count 500"],
      "listen": ["listen udp:[::]:9000 --codec legctrl --format ndjson"],
      "emulate": ["emulate legctrl --listen udp:127.0.0.1:9000"],
    ],
    framingFields: ["header", "reserved"],
    // The protocol reference's golden vectors (§2).
    vectors: [
      ("set_servo_ch0", [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]), ("arm", [0x01, 0x01, 0x00, 0x00]),
      ("disarm", [0x01, 0x02, 0x00, 0x00]), ("ping", [0x01, 0x04, 0x00, 0x00]),
      ("telemetry", [0x01, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00]),
      ("telemetry", [0x01, 0x10, 0x08, 0x00, 0x02, 0x01, 0xC8, 0x00, 0xE8, 0x1C, 0x00, 0x00]),
    ])
}
