import PacketKit

/// The message kinds and fields of Rider, with the JSON's own key names.
enum RiderSchema {
  /// The robot reads at most this many bytes of a datagram.
  static let robotReadLimit = 1024
  static let speedRange: ClosedRange<Double> = -100...100
  static let speedRangeText = "−100…100"

  // Left and right have no default *value*: the codec uses 0 when neither
  // they nor x/y are given, so that a CLI filling defaults in cannot make
  // every joystick craft look like a conflict.
  static let left = FieldSchema(
    "left", kind: .number, unit: "%", range: speedRange, defaultDescription: "0",
    help: "left motor speed in percent (the robot takes int() of it and clamps to ±100)")

  static let right = FieldSchema(
    "right", kind: .number, unit: "%", range: speedRange, defaultDescription: "0",
    help: "right motor speed in percent (the robot takes int() of it and clamps to ±100)")

  static let timestamp = FieldSchema(
    "timestamp", kind: .number, unit: "s", defaultDescription: "now",
    help: "Unix seconds with fraction; the robot ignores it, decoders measure delay with it")

  static let x = FieldSchema(
    "x", kind: .number, range: -1...1, help: "joystick x (−1…1); mixed as the app does",
    role: .craftParameter)

  static let y = FieldSchema(
    "y", kind: .number, range: -1...1, help: "joystick y (−1…1); mixed as the app does",
    role: .craftParameter)

  static let legacyLeft = FieldSchema(
    "left", kind: .integer, unit: "%", range: speedRange, default: .integer(0),
    help: "left motor speed in percent, an integer")

  static let legacyRight = FieldSchema(
    "right", kind: .integer, unit: "%", range: speedRange, default: .integer(0),
    help: "right motor speed in percent, an integer")

  static let legacyDirection = FieldSchema(
    "direction",
    kind: .enumeration([
      .init("straight", Int64(RiderLegacyDirection.straight)),
      .init("left", Int64(RiderLegacyDirection.left)),
      .init("right", Int64(RiderLegacyDirection.right)),
    ]),
    default: .enumeration(name: "straight", raw: Int64(RiderLegacyDirection.straight)),
    help: "straight, left or right")

  static let moveCommand = FieldSchema(
    "command",
    kind: .enumeration([.init(RiderMoveCommand.move, 0), .init(RiderMoveCommand.stop, 1)]),
    default: .enumeration(name: RiderMoveCommand.move, raw: 0),
    help: "move or stop (--move, --stop)", casesAreFlags: true)

  static let speed = FieldSchema(
    "speed", kind: .number, unit: "%", range: speedRange, default: .integer(0),
    help: "speed in percent, −100…100")

  static let moveDirection = FieldSchema(
    "direction", kind: .number, range: speedRange, default: .integer(0),
    help: "steering, −100 (left) … 100 (right)")

  static let driveKeys: Set<String> = ["left", "right", "timestamp"]
  static let moveKeys: Set<String> = ["command", "speed", "direction", "timestamp"]

  static let info = CodecInfo(
    name: "rider", title: "Yahboom Rider Pi motor commands",
    transport: "UDP port 5005 (robot side), one JSON datagram per command",
    messages: [
      MessageSchema(
        "drive", craftNames: ["drive"],
        summary: "drive: left/right motor speeds; the app sends it at 20 Hz, stop is 0/0",
        direction: .appToDevice, fields: [left, right, timestamp, x, y]),
      MessageSchema(
        "legacy", craftNames: ["legacy"],
        summary: "legacy text form left,right,direction (documented, never seen in code)",
        direction: .appToDevice, fields: [legacyLeft, legacyRight, legacyDirection]),
      MessageSchema(
        "move", craftNames: ["move"],
        summary: "move variant of an unmerged app branch: command, speed, direction",
        direction: .appToDevice, fields: [moveCommand, speed, moveDirection, timestamp]),
    ],
    notes: [
      "the robot stops its motors when no command arrives for more than 1.0 s",
      "the robot reads at most 1024 bytes of a datagram and ignores keys it does not know",
      "joystick mixing: left = 100y + 100x, right = 100y − 100x, scaled so the larger is at most 100",
    ],
    encoding: .json, maxPayloadLength: RiderCodec.jsonLimits.maxBytes, wellKnown: [.udp(5005)],
    examples: [
      "decode": [
        "decode capture.pcap -V --filter 'udp port 5005'",
        "decode capture.pcap --format ndjson | jq 'select(.codec==\"rider\")'",
      ],
      "craft": ["craft drive --left 50 --right -37.5", "craft drive --x 0.3 --y 1.0"],
      "send": ["send udp://127.0.0.1:5005 drive --left 40 --right 40 --rate 20hz --duration 5s"],
      "listen": ["listen udp:5005", "listen udp:5005 --count 100 --stats -q"],
      "replay": ["replay Captures/rider-20hz.pcap --to udp://127.0.0.1:5005"],
      "capture": ["capture -i lo --filter 'udp port 5005'"],
      "analyze": ["analyze capture.pcap --timeline | jq 'select(.event==\"watchdog_stop\")'"],
      "emulate": ["emulate rider --listen udp:127.0.0.1:5005"],
    ],
    // The three forms as the reference writes them (§1a, §1b, §1c).
    vectors: [
      ("drive", Array(#"{"left": 50, "right": -37.5, "timestamp": 1700000000.25}"#.utf8)),
      ("legacy", Array("60,40,2".utf8)),
      ("move", Array(#"{"command": "move", "speed": 40, "direction": 0, "timestamp": 1700000000.25}"#.utf8)),
    ])
}
