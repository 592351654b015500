import FalconEyeCodec
import PacketKit
import Testing

/// `craft` of every kind, against envelopes built by Python:
//
//   import json, base64, hmac, hashlib
//   def dumps(o): return json.dumps(o, separators=(',', ':'))
//   def env(kind, ts, inner_text):
//       return dumps({"type": kind, "timestamp": ts, "payload": base64.b64encode(inner_text.encode()).decode()})
//   def tok(msg, secret=b"s3cret"):
//       return base64.b64encode(hmac.new(secret, msg.encode(), hashlib.sha256).digest()).decode()
//   dev = "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E"
//   info = {"model": "iPhone", "osVersion": "17.0", "hasLiDAR": False}
//   print("auth client", env("authRequest", 1700000000.5, dumps({"deviceId": dev, "token": tok(dev + ":1700000000.5"), "deviceInfo": info})))
//   print("auth server", env("authRequest", 1700000000.5, dumps({"deviceId": dev, "token": tok(dev + ":1700000000.5:00112233445566778899aabbccddeeff:s3cret"), "deviceInfo": info})))
//   print("auth-response", env("authResponse", 5, dumps({"success": True, "sessionId": "S-1"})))
//   jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0]) + b"\x00\x10JFIF\x00" + bytes(range(10)) + bytes([0xFF, 0xD9])
//   print("frame", env("cameraFrame", 1700000001.25, dumps({"frameId": "f-0001", "timestamp": 1700000001.25, "imageData": base64.b64encode(jpeg).decode(),
//       "devicePose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
//       "intrinsics": {"fx": 1450.5, "fy": 1450.5, "cx": 960, "cy": 720, "width": 1920, "height": 1440}})))
//   print("pose", env("poseBroadcast", 10, dumps({"timestamp": 10, "poses": [{"personId": "person-1", "joints": [
//       {"type": "leftKnee", "position": [0.5, -1, 2.5], "confidence": 0.8}], "sourceDevice": "aerie", "confidence": 0.8}]})))
//   print("heartbeat", env("heartbeat", 1, "{}"))
//   print("pong", env("heartbeat", 1, dumps({"pong": True})))
//   print("inner-json", env("heartbeat", 1, '{"pong": true}'))
@Suite struct FalconEyeCraftTests {
  let codec = FalconEyeCodec()

  func craft(_ name: String, _ values: [String: FieldValue], force: Bool = false) throws -> String {
    String(decoding: try codec.craft(name, values: CraftValues(values, force: force)), as: UTF8.self)
  }

  @Test func authWithClientSigning() throws {
    let text = try craft(
      "auth",
      [
        "deviceId": .string(Vectors.deviceId), "secret": .string("s3cret"),
        "timestamp": .number(1_700_000_000.5),
      ])
    #expect(
      text
        == #"{"type":"authRequest","timestamp":1700000000.5,"payload":"eyJkZXZpY2VJZCI6IkM0MkUxQ0EwLTk0Q0YtNkFCQS05RUFCLUNCQTEzRjE5NzExRSIsInRva2VuIjoiTXJwZ2tnUTU1dU9CR1gydlNKbDdHRWZBOHdpTWI2dnM0dlo1M1BONUVxZz0iLCJkZXZpY2VJbmZvIjp7Im1vZGVsIjoiaVBob25lIiwib3NWZXJzaW9uIjoiMTcuMCIsImhhc0xpREFSIjpmYWxzZX19"}"#
    )
  }

  @Test func authWithServerSigning() throws {
    let text = try craft(
      "authRequest",
      [
        "deviceId": .string(Vectors.deviceId), "secret": .string("s3cret"),
        "timestamp": .number(1_700_000_000.5), "signing": .enumeration(name: "server", raw: 1),
        "nonce": .string("00112233445566778899aabbccddeeff"),
      ])
    #expect(
      text
        == #"{"type":"authRequest","timestamp":1700000000.5,"payload":"eyJkZXZpY2VJZCI6IkM0MkUxQ0EwLTk0Q0YtNkFCQS05RUFCLUNCQTEzRjE5NzExRSIsInRva2VuIjoiS2VYZWUvU25LaW4xT3FINitKMVp4L2d4RXVNNTdFNTRJNjl4Z0dSTURqaz0iLCJkZXZpY2VJbmZvIjp7Im1vZGVsIjoiaVBob25lIiwib3NWZXJzaW9uIjoiMTcuMCIsImhhc0xpREFSIjpmYWxzZX19"}"#
    )
  }

  @Test func authServerSigningWithARandomNonce() throws {
    let values: [String: FieldValue] = [
      "deviceId": .string("d"), "secret": .string("s"), "signing": .string("server"),
    ]
    let message = try codec.message("auth", from: CraftValues(values))
    guard case .authRequest(let request) = message.body else {
      Issue.record("expected authRequest")
      return
    }
    #expect(FalconEyeAuthToken.isAcceptedByServer(request.token))
    #expect(message.envelopeTimestamp != nil)  // now
  }

  @Test func authNeedsASecretOrAToken() throws {
    do {
      _ = try craft("auth", ["deviceId": .string("d")])
      Issue.record("expected an error")
    } catch let error as EncodeError {
      #expect(error.code == "missing-field")
      #expect(error.field == "token")
    }
    let explicit = try codec.decode(
      try codec.craft(
        "auth",
        values: CraftValues(["deviceId": .string("d"), "token": .string(Vectors.clientToken)])))
    #expect(explicit.fields.first(named: "token")?.value == .string(Vectors.clientToken))
    #expect(explicit.fields.first(named: "model")?.value == .string("iPhone"))
  }

  @Test func authResponse() throws {
    let text = try craft("auth-response", ["sessionId": .string("S-1"), "timestamp": .integer(5)])
    #expect(
      text
        == #"{"type":"authResponse","timestamp":5,"payload":"eyJzdWNjZXNzIjp0cnVlLCJzZXNzaW9uSWQiOiJTLTEifQ=="}"#
    )
  }

  @Test func cameraFrameFromJPEGBytes() throws {
    let text = try craft(
      "frame", ["imageData": .bytes(Vectors.jpeg), "timestamp": .number(1_700_000_001.25)])
    #expect(
      text
        == #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMF0sWzAsMSwwLDBdLFswLDAsMSwwXSxbMCwwLDAsMV1dLCJpbnRyaW5zaWNzIjp7ImZ4IjoxNDUwLjUsImZ5IjoxNDUwLjUsImN4Ijo5NjAsImN5Ijo3MjAsIndpZHRoIjoxOTIwLCJoZWlnaHQiOjE0NDB9fQ=="}"#
    )
  }

  @Test func cameraFrameNeedsAJPEG() throws {
    #expect(throws: EncodeError.self) { try craft("frame", [:]) }
  }

  @Test func poseBroadcast() throws {
    let text = try craft(
      "pose",
      [
        "joint": .enumeration(name: "leftKnee", raw: 9), "x": .number(0.5), "y": .integer(-1),
        "z": .number(2.5), "confidence": .number(0.8), "timestamp": .integer(10),
      ])
    #expect(
      text
        == #"{"type":"poseBroadcast","timestamp":10,"payload":"eyJ0aW1lc3RhbXAiOjEwLCJwb3NlcyI6W3sicGVyc29uSWQiOiJwZXJzb24tMSIsImpvaW50cyI6W3sidHlwZSI6ImxlZnRLbmVlIiwicG9zaXRpb24iOlswLjUsLTEsMi41XSwiY29uZmlkZW5jZSI6MC44fV0sInNvdXJjZURldmljZSI6ImFlcmllIiwiY29uZmlkZW5jZSI6MC44fV19"}"#
    )
  }

  @Test func heartbeats() throws {
    #expect(
      try craft("heartbeat", ["timestamp": .integer(1)])
        == #"{"type":"heartbeat","timestamp":1,"payload":"e30="}"#)
    #expect(
      try craft("heartbeat", ["timestamp": .integer(1), "pong": .bool(true)])
        == #"{"type":"heartbeat","timestamp":1,"payload":"eyJwb25nIjp0cnVlfQ=="}"#)
  }

  /// `--inner-json` is sent as written (here with the server's space).
  @Test func innerJSONIsSentVerbatim() throws {
    let text = try craft("heartbeat", ["timestamp": .integer(1), "innerJSON": .string(#"{"pong": true}"#)])
    #expect(text == #"{"type":"heartbeat","timestamp":1,"payload":"eyJwb25nIjogdHJ1ZX0="}"#)
    let message = try codec.message(
      "heartbeat", from: CraftValues(["timestamp": .integer(1), "innerJSON": .string(#"{"pong": true}"#)]))
    #expect(message.body == .heartbeat(.init(pong: true)))
  }

  @Test func innerJSONIsValidated() throws {
    do {
      _ = try craft("frame", ["innerJSON": .string(#"{"frameId":1}"#)])
      Issue.record("expected an error")
    } catch let error as EncodeError {
      #expect(error.code == "bad-inner-json")
      #expect(error.field == "innerJSON")
    }
    // Warnings refuse unless forced.
    let unknownJoint =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"nose","position":[0,0,1],"confidence":1}],"sourceDevice":"s","confidence":1}]}"#
    #expect(throws: EncodeError.self) { try craft("pose", ["innerJSON": .string(unknownJoint)]) }
    let forced = try codec.decode(
      try codec.craft("pose", values: CraftValues(["innerJSON": .string(unknownJoint)], force: true)))
    #expect(forced.diagnostics.map(\.code) == ["unknown-joint"])
  }

  // MARK: Range refusals

  @Test func confidenceOutOfRangeIsRefusedUnlessForced() throws {
    do {
      _ = try craft("pose", ["confidence": .number(1.5)])
      Issue.record("expected an error")
    } catch let error as EncodeError {
      #expect(error.code == "out-of-range")
      #expect(error.field == "confidence")
    }
    let forced = try codec.decode(
      try codec.craft("pose", values: CraftValues(["confidence": .number(1.5)], force: true)))
    #expect(forced.diagnostics.map(\.code) == ["out-of-range", "out-of-range"])
  }

  @Test func tokenTheServerRejectsIsRefusedUnlessForced() throws {
    let values: [String: FieldValue] = ["deviceId": .string("d"), "token": .string("abc")]
    do {
      _ = try craft("auth", values)
      Issue.record("expected an error")
    } catch let error as EncodeError {
      #expect(error.code == "token-rejected")
    }
    let forced = try codec.decode(try codec.craft("auth", values: CraftValues(values, force: true)))
    #expect(forced.diagnostics.map(\.code) == ["token-rejected", "token-unverifiable"])
  }

  @Test func unknownJointNameIsRefused() throws {
    #expect(throws: EncodeError.self) { try craft("pose", ["joint": .string("nose")]) }
  }

  /// A joint is named as the app spells it or in any case.
  @Test func jointNamesInAnyCase() throws {
    for name in ["leftShoulder", "LEFTSHOULDER", "leftshoulder"] {
      let text = try craft("pose", ["joint": .string(name)])
      guard case .poseBroadcast(let broadcast) = try codec.decode(Array(text.utf8)).message.body else {
        Issue.record("\(name): not a pose broadcast")
        continue
      }
      #expect(broadcast.poses.first?.joints.first?.type == "leftShoulder", "\(name)")
    }
  }

  @Test func encodeRefusesWhatCannotBeSent() throws {
    let frame = FalconEyeCameraFrame(
      frameId: "f", timestamp: 1, imageData: "", devicePose: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
      intrinsics: .init(fx: 1, fy: 1, cx: 0, cy: 0, width: 1, height: 1))
    #expect(throws: EncodeError.self) {
      try codec.encode(FalconEyeMessage(.cameraFrame(frame), envelopeTimestamp: 1))
    }
    // Not even --force writes a 3×3 pose or a NaN.
    #expect(throws: EncodeError.self) {
      try codec.craftBytes(
        FalconEyeMessage(.cameraFrame(frame), envelopeTimestamp: 1), values: CraftValues(force: true))
    }
    #expect(throws: EncodeError.self) {
      try codec.encode(FalconEyeMessage(.heartbeat(.init()), envelopeTimestamp: .nan))
    }
  }

  @Test func unknownMessageName() throws {
    #expect(throws: EncodeError.self) { try craft("videoFrame", [:]) }
  }

  @Test func schemaNamesAndFlags() {
    let info = codec.info
    #expect(info.name == "falconeye")
    #expect(
      info.messages.map(\.name) == [
        "authRequest", "authResponse", "cameraFrame", "poseBroadcast", "heartbeat",
      ])
    #expect(info.message(named: "auth")?.field(named: "deviceId")?.flag == "device-id")
    #expect(info.message(named: "auth")?.field(named: "secret")?.role == .craftParameter)
    #expect(info.message(named: "frame")?.field(named: "imageData")?.flag == "jpeg")
    #expect(info.message(named: "pose")?.field(named: "joint")?.enumCases.count == 13)
    #expect(info.message(named: "heartbeat")?.field(named: "innerJSON")?.flag == "inner-json")
  }
}
