import PacketKit

/// Beacon's messages and fields: names, craft flags, units, ranges,
/// defaults. `pktbench codecs`, craft flags, range checks and the fuzzer's
/// messages all come from here.
enum BeaconSchema {
  static let readingMagic: UInt8 = 0xB1
  static let ackMagic: UInt8 = 0xB2

  static let sequence = FieldSchema(
    "seq", kind: .integer, range: 0...255, default: .integer(0), help: "sequence number")
  static let moisture = FieldSchema(
    "moisture", kind: .integer, unit: "%", range: 0...100, help: "volumetric soil moisture in percent")
  static let temperature = FieldSchema(
    "temperature", flag: "temp", kind: .number, unit: "°C", range: -40...85, default: .number(20),
    help: "soil temperature in °C, sent in tenths")
  static let battery = FieldSchema(
    "battery_mv", flag: "battery-mv", kind: .integer, unit: "mV", range: 2000...4200, default: .integer(3700),
    help: "battery voltage in millivolts")
  static let status = FieldSchema(
    "status", kind: .enumeration([.init("ok", 0), .init("low_battery", 1), .init("sensor_fault", 2)]),
    default: .enumeration(name: "ok", raw: 0), help: "ok, low-battery or sensor-fault")

  static let info = CodecInfo(
    name: "beacon", title: "Beacon v1 soil sensor", transport: "UDP port 7070, one datagram per message",
    messages: [
      MessageSchema(
        "reading", summary: "a sensor reading, broadcast every 10 s", direction: .deviceToApp,
        fields: [sequence, moisture, temperature, battery, status]),
      MessageSchema(
        "ack", summary: "the gateway's acknowledgement of a reading", direction: .appToDevice,
        fields: [sequence]),
    ],
    hasCheckByte: true, wellKnown: [.udp(7070)],
    examples: [
      "craft": ["craft reading --moisture 42 --temp 18.5"],
      "decode": ["decode Captures/beacon.pcap"],
    ])

  /// XOR of the bytes.
  static func check(_ bytes: ArraySlice<UInt8>) -> UInt8 {
    bytes.reduce(0, ^)
  }
}
