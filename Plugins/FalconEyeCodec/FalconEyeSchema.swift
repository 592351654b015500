import PacketKit

/// The message kinds and `craft` fields of FalconEye, in the inner JSON's
/// key names. A field with a `defaultDescription` but no `defaultValue` is
/// optional: the codec computes it (a timestamp of now, a signed token).
enum FalconEyeSchema {
  static let timestamp = FieldSchema(
    "timestamp", kind: .number, unit: "s", defaultDescription: "now",
    help: "Unix seconds: the envelope's timestamp, and the frame's, broadcast's or signed token's")

  static let innerJSON = FieldSchema(
    "innerJSON", flag: "inner-json", kind: .string, defaultDescription: "built from the fields",
    help: "inner JSON to send as the payload instead (checked by decoding it)", role: .craftParameter)

  // authRequest
  static let deviceId = FieldSchema(
    "deviceId", flag: "device-id", kind: .string, help: "the device's UUID (also in the socket URL)")
  static let token = FieldSchema(
    "token", kind: .string, defaultDescription: "signed with --secret",
    help: "the token to send, instead of signing one with --secret",
    textRule: FalconEyeAuthToken.serverRule)
  static let model = FieldSchema(
    "model", kind: .string, default: .string("iPhone"), help: "deviceInfo.model, e.g. \"iPhone 15 Pro\"")
  static let osVersion = FieldSchema(
    "osVersion", flag: "os-version", kind: .string, default: .string("17.0"), help: "deviceInfo.osVersion")
  static let hasLiDAR = FieldSchema(
    "hasLiDAR", flag: "lidar", kind: .bool, default: .bool(false), help: "deviceInfo.hasLiDAR")
  static let secret = FieldSchema(
    "secret", kind: .string, default: .string(""),
    help: "shared secret that signs the token (HMAC-SHA256); without it --token is required",
    role: .craftParameter)
  static let signing = FieldSchema(
    "signing", kind: .enumeration([.init("client", 0), .init("server", 1)]),
    default: .enumeration(name: "client", raw: 0),
    help: "client signs \"deviceId:timestamp\" as the app does; server signs "
      + "\"deviceId:timestamp:nonce:secret\" as the server's generator does",
    role: .craftParameter)
  static let nonce = FieldSchema(
    "nonce", kind: .string, defaultDescription: "32 random hex digits",
    help: "nonce for server signing", role: .craftParameter)

  // authResponse
  static let success = FieldSchema(
    "success", kind: .bool, default: .bool(true), help: "whether authentication succeeded")
  static let sessionId = FieldSchema(
    "sessionId", flag: "session-id", kind: .string, defaultDescription: "omitted",
    help: "session UUID (sessions expire after 3600 s)")
  static let error = FieldSchema(
    "error", kind: .string, defaultDescription: "omitted", help: "error text when success is false")

  // cameraFrame
  static let imageData = FieldSchema(
    "imageData", flag: "jpeg", kind: .file, help: "JPEG file sent base64 as imageData",
    content: .jpeg(.extracted(FalconEyeCameraFrame.image(inPayload:)), namedBy: "frameId"))
  static let frameId = FieldSchema(
    "frameId", flag: "frame-id", kind: .string, default: .string("f-0001"), help: "frame identifier")
  static let fx = FieldSchema(
    "fx", kind: .number, unit: "px", default: .number(1450.5), help: "focal length x")
  static let fy = FieldSchema(
    "fy", kind: .number, unit: "px", default: .number(1450.5), help: "focal length y")
  static let cx = FieldSchema(
    "cx", kind: .number, unit: "px", default: .number(960), help: "principal point x")
  static let cy = FieldSchema(
    "cy", kind: .number, unit: "px", default: .number(720), help: "principal point y")
  static let width = FieldSchema(
    "width", kind: .integer, unit: "px", default: .integer(1920), help: "image width")
  static let height = FieldSchema(
    "height", kind: .integer, unit: "px", default: .integer(1440), help: "image height")

  // poseBroadcast: one pose of one joint
  static let personId = FieldSchema(
    "personId", flag: "person-id", kind: .string, default: .string("person-1"), help: "person identifier")
  static let joint = FieldSchema(
    "joint",
    kind: .enumeration(
      FalconEyeJointType.allCases.enumerated().map { .init($0.element.rawValue, Int64($0.offset)) }),
    default: .enumeration(name: "head", raw: 0), help: "the joint's type")
  static let x = FieldSchema("x", kind: .number, unit: "m", default: .number(0), help: "joint position x")
  static let y = FieldSchema("y", kind: .number, unit: "m", default: .number(0), help: "joint position y")
  static let z = FieldSchema("z", kind: .number, unit: "m", default: .number(2), help: "joint position z")
  static let confidence = FieldSchema(
    "confidence", kind: .number, range: 0...1, default: .number(0.9),
    help: "confidence of the joint and the pose")
  static let sourceDevice = FieldSchema(
    "sourceDevice", flag: "source-device", kind: .string, default: .string("aerie"),
    help: "device whose frames showed the person")

  // heartbeat
  static let pong = FieldSchema(
    "pong", kind: .bool, default: .bool(false),
    help: "send the server's {\"pong\": true} instead of the client's {}")

  static let info = CodecInfo(
    name: "falconeye", title: "FalconEye HawkSight ⇄ Aerie",
    transport: "WebSocket text messages, ws://<server>:8000/ws/connect/<deviceId>",
    messages: [
      MessageSchema(
        "authRequest", craftNames: ["auth"],
        summary: "the app's first message: deviceId, HMAC token, device info",
        direction: .appToDevice,
        fields: [
          deviceId, token, model, osVersion, hasLiDAR, timestamp, secret, signing, nonce, innerJSON,
        ]),
      MessageSchema(
        "authResponse", craftNames: ["auth-response"],
        summary: "the server's answer: success, sessionId or error", direction: .deviceToApp,
        fields: [success, sessionId, error, timestamp, innerJSON]),
      MessageSchema(
        "cameraFrame", craftNames: ["frame"],
        summary: "a JPEG with the device pose and camera intrinsics (30 fps, < 500 KB)",
        direction: .appToDevice,
        fields: [imageData, frameId, fx, fy, cx, cy, width, height, timestamp, innerJSON]),
      MessageSchema(
        "poseBroadcast", craftNames: ["pose"],
        summary: "skeletons the server detected, in world coordinates", direction: .deviceToApp,
        fields: [personId, joint, x, y, z, confidence, sourceDevice, timestamp, innerJSON]),
      MessageSchema(
        "heartbeat", craftNames: ["heartbeat"],
        summary: "keep-alive: the client sends {}, the server answers {\"pong\": true}",
        direction: .either, fields: [pong, timestamp, innerJSON]),
    ],
    notes: [
      "envelope {\"type\", \"timestamp\", \"payload\"}; payload is base64 of the inner JSON",
      "the auth token is never verified: the server only checks its shape, and the signed timestamp is not sent",
      "the server keeps Vapor's 16 KiB frame limit, far below the app's 500 KB frames",
    ],
    encoding: .json, maxPayloadLength: FalconEyeEnvelope.limits.maxBytes,
    wellKnown: [.webSocket(pathPrefix: "/ws/connect/", lastSegmentField: "deviceId")],
    examples: [
      "craft": ["craft auth --device-id D --secret S --signing client", "craft frame --jpeg photo.jpg"],
      "send": [
        "send ws://127.0.0.1:8000/ws/connect/D auth --secret S then frame --jpeg a.jpg --rate 30hz --count 90"
      ],
      "listen": ["listen ws:8000"],
      "emulate": ["emulate falconeye --listen ws:127.0.0.1:8000 --aerie-bugs"],
    ],
    framingFields: ["type"],
    // Envelopes as the reference describes them (§4): a heartbeat (the
    // base64 of {}) and the server's pong (of {"pong":true}).
    vectors: [
      ("heartbeat", Array(#"{"type":"heartbeat","timestamp":1700000000.5,"payload":"e30="}"#.utf8)),
      (
        "heartbeat",
        Array(#"{"type":"heartbeat","timestamp":1700000000.5,"payload":"eyJwb25nIjp0cnVlfQ=="}"#.utf8)
      ),
    ])
}
