import Foundation
import PacketKit

/// Builds typed messages from `craft` values. `craft` always produces
/// envelopes; values missing from `values` take the schema's defaults, so
/// generators and tests need not fill every field.
extension FalconEyeCodec {
  public func message(_ message: String, from values: CraftValues) throws(EncodeError)
    -> FalconEyeMessage
  {
    guard let schema = info.message(named: message), let kind = FalconEyeKind.named(schema.name)
    else {
      throw EncodeError(
        code: "unknown-message", text: "falconeye has no message '\(message)'; it has \(FalconEyeKind.list)")
    }
    var values = values
    for field in schema.fields where !values.has(field.name) {
      if let value = field.defaultValue { values[field.name] = value }
    }
    let timestamp = values.has("timestamp") ? try values.number("timestamp") : Date().timeIntervalSince1970
    try FalconEyeCheck.finite(timestamp, "timestamp")

    if values.has(FalconEyeSchema.innerJSON.name) {
      return try fromInnerJSON(kind, values, timestamp: timestamp)
    }
    let body: FalconEyeMessage.Body
    switch kind {
    case .authRequest: body = .authRequest(try authRequest(values, timestamp: timestamp))
    case .authResponse:
      body = .authResponse(
        FalconEyeAuthResponse(
          success: try values.bool("success"), sessionId: try optionalString("sessionId", values),
          error: try optionalString("error", values)))
    case .cameraFrame: body = .cameraFrame(try cameraFrame(values, timestamp: timestamp))
    case .poseBroadcast: body = .poseBroadcast(try poseBroadcast(values, timestamp: timestamp))
    case .heartbeat: body = .heartbeat(FalconEyeHeartbeat(pong: try values.bool("pong") ? true : nil))
    }
    let typed = FalconEyeMessage(body, envelopeTimestamp: timestamp)
    try validate(typed, force: values.force)
    return typed
  }

  /// Like `encode`, but `force` skips range checks, and `--inner-json` is
  /// sent exactly as given rather than re-encoded.
  public func craftBytes(_ message: FalconEyeMessage, values: CraftValues) throws(EncodeError)
    -> [UInt8]
  {
    try validate(message, force: values.force)
    guard let innerJSON = values[FalconEyeSchema.innerJSON.name]?.stringValue else {
      return Self.unchecked(message)
    }
    let timestamp = message.envelopeTimestamp ?? Date().timeIntervalSince1970
    return Array(innerJSON.utf8).withUnsafeBytes {
      Self.envelope(message.kind, timestamp: timestamp, inner: $0)
    }
  }

  private func optionalString(_ name: String, _ values: CraftValues) throws(EncodeError) -> String? {
    values.has(name) ? try values.string(name) : nil
  }

  private func authRequest(_ values: CraftValues, timestamp: Double) throws(EncodeError)
    -> FalconEyeAuthRequest
  {
    let deviceId = try values.string("deviceId")
    let secret = try values.string("secret")
    let token: String
    if values.has("token") {
      token = try values.string("token")
    } else if !secret.isEmpty {
      let signing = try values.string("signing").lowercased()
      switch signing {
      case "client":
        token = FalconEyeAuthToken.client(deviceId: deviceId, timestamp: timestamp, secret: secret)
      case "server":
        let nonce = values.has("nonce") ? try values.string("nonce") : FalconEyeAuthToken.randomNonce()
        token = FalconEyeAuthToken.server(
          deviceId: deviceId, timestamp: timestamp, nonce: nonce, secret: secret)
      default:
        throw EncodeError(
          code: "wrong-type", text: "signing must be client or server, not \(signing)", field: "signing")
      }
    } else {
      throw EncodeError(
        code: "missing-field", text: "authRequest needs --secret to sign a token, or --token",
        field: "token")
    }
    let info = FalconEyeDeviceInfo(
      model: try values.string("model"), osVersion: try values.string("osVersion"),
      hasLiDAR: try values.bool("hasLiDAR"))
    return FalconEyeAuthRequest(deviceId: deviceId, token: token, deviceInfo: info)
  }

  private func cameraFrame(_ values: CraftValues, timestamp: Double) throws(EncodeError)
    -> FalconEyeCameraFrame
  {
    let jpeg = try values.bytes("imageData")
    let image = FalconEyeImage(jpeg)
    if !values.force, !image.isJPEG {
      // A frame of anything else is a frame the app never sends (docs/protocols.md §4).
      throw EncodeError(
        code: "not-jpeg",
        text:
          "imageData is not a JPEG: \(image.byteCount) bytes starting \(Hex.spaced(image.head.prefix(2))) "
          + "and ending \(Hex.spaced(image.tail)); a JPEG starts FF D8 and ends FF D9",
        field: "imageData", forceCrafts: true)
    }
    let intrinsics = FalconEyeIntrinsics(
      fx: try values.number("fx"), fy: try values.number("fy"), cx: try values.number("cx"),
      cy: try values.number("cy"), width: try pixels("width", values), height: try pixels("height", values))
    return FalconEyeCameraFrame(
      frameId: try values.string("frameId"), timestamp: timestamp,
      imageData: .bytes(jpeg), intrinsics: intrinsics)
  }

  private func pixels(_ name: String, _ values: CraftValues) throws(EncodeError) -> Int {
    let value = try values.integer(name)
    guard let pixels = Int(exactly: value) else {
      throw .outOfRange(name, String(value), allowed: "an Int", unit: "px")
    }
    return pixels
  }

  private func poseBroadcast(_ values: CraftValues, timestamp: Double) throws(EncodeError)
    -> FalconEyePoseBroadcast
  {
    let name = try values.string("joint")
    // As written first (a name lookup), then in any case: lowering all
    // thirteen names made 26 strings a broadcast.
    guard
      let type = FalconEyeJointType.named(name)
        ?? FalconEyeJointType.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() })
    else {
      throw EncodeError(
        code: "unknown-joint", text: "joint \(name) is not one of \(FalconEyeJointType.list)",
        field: "joint")
    }
    let confidence = try values.number("confidence")
    if !values.force { try FalconEyeSchema.confidence.validate(.number(confidence)) }
    let joint = FalconEyeJoint(
      type, position: [try values.number("x"), try values.number("y"), try values.number("z")],
      confidence: confidence)
    let pose = FalconEyeDetectedPose(
      personId: try values.string("personId"), joints: [joint],
      sourceDevice: try values.string("sourceDevice"), confidence: confidence)
    return FalconEyePoseBroadcast(timestamp: timestamp, poses: [pose])
  }

  /// `--inner-json`: the text must decode as an inner message of `kind`;
  /// what would decode with warnings is refused unless forced.
  private func fromInnerJSON(_ kind: FalconEyeKind, _ values: CraftValues, timestamp: Double)
    throws(EncodeError) -> FalconEyeMessage
  {
    let text = try values.string(FalconEyeSchema.innerJSON.name)
    let parsed: (FalconEyeMessage.Body, [Diagnostic])
    do throws(DecodeError) {
      var text = text
      parsed = try text.withUTF8 { utf8 in
        Result { () throws(DecodeError) in
          var reader = FalconEyeReader(map: .identity, root: .bare)
          let (body, _) = try JSONTape.read(UnsafeRawBufferPointer(utf8), limits: FalconEyeEnvelope.limits) {
            root throws(DecodeError) in try FalconEyeEnvelope.decodeInner(kind, root, &reader)
          }
          return (body, reader.diagnostics)
        }
      }.get()
    } catch {
      throw EncodeError(
        code: "bad-inner-json", text: "--inner-json is not a \(kind.rawValue): \(error.text)",
        field: FalconEyeSchema.innerJSON.name)
    }
    if !values.force, let warning = parsed.1.first {
      throw EncodeError(
        code: warning.code, text: "--inner-json: \(warning.text) (--force sends it anyway)",
        field: FalconEyeSchema.innerJSON.name)
    }
    return FalconEyeMessage(parsed.0, envelopeTimestamp: timestamp)
  }
}
