import FalconEyeCodec
import PacketKit
import Testing

/// Decoding the Python-built envelopes of every kind, the bare form, and real
/// traffic from the Aerie server.
@Suite struct FalconEyeDecodeTests {
  let codec = FalconEyeCodec()

  @Test func authRequestEnvelope() throws {
    let decoded = try codec.decode(Vectors.authRequest.bytes)
    #expect(decoded.messageName == "authRequest")
    #expect(decoded.message.envelopeTimestamp == 1_700_000_000.5)
    #expect(!decoded.message.isBare)
    let expected = FalconEyeAuthRequest(
      deviceId: Vectors.deviceId, token: Vectors.clientToken,
      deviceInfo: FalconEyeDeviceInfo(model: "iPhone 15 Pro", osVersion: "iOS 18.1", hasLiDAR: true))
    #expect(decoded.message.body == .authRequest(expected))
    #expect(decoded.fields.map(\.name) == ["type", "timestamp", "payload"])
    #expect(decoded.fields.first(named: "type")?.value == .string("authRequest"))
    let payload = try #require(decoded.fields.first(named: "payload"))
    #expect(payload.children.map(\.name) == ["deviceId", "token", "deviceInfo"])
    #expect(payload.first(named: "hasLiDAR")?.value == .bool(true))
    #expect(decoded.diagnostics.map(\.code) == ["token-unverifiable"])
  }

  @Test func authResponseEnvelope() throws {
    let decoded = try codec.decode(Vectors.authResponse.bytes)
    #expect(
      decoded.message
        == FalconEyeMessage(
          .authResponse(.init(success: true, sessionId: "0227E8CC-CEA0-4640-8CBD-C63D69079895")),
          envelopeTimestamp: 1_700_000_000.75))
    #expect(decoded.diagnostics.map(\.code) == ["token-unverifiable"])
    #expect(decoded.diagnostics.first?.severity == .note)
  }

  @Test func cameraFrameEnvelope() throws {
    let decoded = try codec.decode(Vectors.cameraFrame.bytes)
    guard case .cameraFrame(let frame) = decoded.message.body else {
      Issue.record("expected a cameraFrame")
      return
    }
    #expect(frame.frameId == "f-0001")
    #expect(frame.timestamp == 1_700_000_001.25)
    #expect(frame.imageBytes == Vectors.jpeg)
    #expect(frame.image?.byteCount == 23)
    #expect(frame.image?.head == [0xFF, 0xD8, 0xFF, 0xE0])
    #expect(frame.image?.tail == [0xFF, 0xD9])
    #expect(frame.image?.isJPEG == true)
    #expect(frame.devicePose == [[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    #expect(
      frame.intrinsics
        == FalconEyeIntrinsics(fx: 1450.5, fy: 1450.5, cx: 960, cy: 720, width: 1920, height: 1440))
    #expect(decoded.diagnostics.isEmpty)
    // The dissection shows a summary of the image, never the base64 itself.
    let image = try #require(decoded.fields.first(named: "imageData"))
    #expect(image.value == .string("23 bytes JPEG (FF D8 … FF D9)"))
    #expect(decoded.fields.first(named: "width")?.value == .integer(1920))
    #expect(decoded.fields.first(named: "width")?.unit == "px")
    let pose = try #require(decoded.fields.first(named: "devicePose"))
    #expect(pose.shape == .array)
    #expect(pose.children.count == 4)
    #expect(pose.children.allSatisfy { $0.children.count == 4 })
  }

  @Test func poseBroadcastEnvelope() throws {
    let decoded = try codec.decode(Vectors.poseBroadcast.bytes)
    let expected = FalconEyePoseBroadcast(
      timestamp: 1_700_000_002.5,
      poses: [
        FalconEyeDetectedPose(
          personId: "person-1",
          joints: [
            FalconEyeJoint(.head, position: [0.25, 1.5, 2], confidence: 0.9),
            FalconEyeJoint(.leftWrist, position: [-0.5, 1, 2.25], confidence: 0.75),
          ],
          sourceDevice: "aerie", confidence: 0.85)
      ])
    #expect(decoded.message.body == .poseBroadcast(expected))
    #expect(decoded.diagnostics.isEmpty)
    let poses = try #require(decoded.fields.first(named: "poses"))
    #expect(poses.children.first?.first(named: "joints")?.children.count == 2)
    #expect(poses.first(named: "z")?.unit == "m")
  }

  @Test func heartbeatsBothWays() throws {
    let client = try codec.decode(Vectors.heartbeatClient.bytes)
    #expect(client.message == FalconEyeMessage(.heartbeat(.init()), envelopeTimestamp: 1_700_000_003))
    #expect(client.fields.first(named: "payload")?.children.isEmpty == true)
    let server = try codec.decode(Vectors.heartbeatServer.bytes)
    #expect(server.message.body == .heartbeat(.init(pong: true)))
    #expect(server.diagnostics.isEmpty)
  }

  @Test func bareInnerObjectIsInferredFromItsKeys() throws {
    let decoded = try codec.decode(Vectors.cameraFrameInner.bytes)
    #expect(decoded.messageName == "cameraFrame")
    #expect(decoded.message.isBare)
    #expect(decoded.message.envelopeTimestamp == nil)
    #expect(decoded.diagnostics.map(\.code) == ["bare-inner"])
    #expect(decoded.diagnostics.first?.severity == .note)
    #expect(decoded.fields.map(\.name) == ["frameId", "timestamp", "imageData", "devicePose", "intrinsics"])
    // Bare offsets are the input's own.
    let text = Vectors.cameraFrameInner
    let fx = try #require(decoded.fields.first(named: "fx"))
    let start = try #require(text.range(of: "1450.5")).lowerBound.utf16Offset(in: text)
    #expect(fx.range == start..<start + 6)
  }

  @Test(arguments: [
    (
      #"{"deviceId":"d","token":"t","deviceInfo":{"model":"m","osVersion":"o","hasLiDAR":false}}"#,
      "authRequest"
    ),
    (#"{"success":false,"error":"no"}"#, "authResponse"),
    (#"{"timestamp":1,"poses":[]}"#, "poseBroadcast"),
    (#"{}"#, "heartbeat"),
    (#"{"pong":true}"#, "heartbeat"),
  ])
  func bareKinds(text: String, kind: String) throws {
    let decoded = try codec.decode(text.bytes)
    #expect(decoded.messageName == kind)
    #expect(decoded.message.isBare)
  }

  /// Real traffic: the values the capture's expected.json lists.
  @Test func realCaptureMessages() throws {
    let auth = try codec.decode(Vectors.realAuthRequest.bytes)
    guard case .authRequest(let request) = auth.message.body else {
      Issue.record("expected authRequest")
      return
    }
    #expect(request.deviceId == "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E")
    #expect(request.token == "y/S3JFs2P0u/Mb5UTkUkRQDfnE+uy9saojaqV541Glk=")
    #expect(auth.message.envelopeTimestamp == 1_795_314_595.9181287)

    // The server writes its envelope keys in another order.
    let response = try codec.decode(Vectors.realAuthResponse.bytes)
    #expect(
      response.message.body
        == .authResponse(.init(success: true, sessionId: "0227E8CC-CEA0-4640-8CBD-C63D69079895")))
    #expect(response.fields.map(\.name) == ["timestamp", "payload", "type"])

    #expect(try codec.decode(Vectors.realHeartbeat.bytes).message.body == .heartbeat(.init()))
    let pong = try codec.decode(Vectors.realPong.bytes)
    #expect(pong.message.body == .heartbeat(.init(pong: true)))
    #expect(pong.diagnostics.isEmpty)

    let failure = try codec.decode(Vectors.realAuthFailure.bytes)
    #expect(
      failure.message.body
        == .authResponse(
          .init(
            success: false,
            error: "The operation could not be completed. The data isn\u{2019}t in the correct format.")))
  }

  /// The client's envelope is already canonical, so it re-encodes byte for byte.
  @Test func realClientMessagesReencodeIdentically() throws {
    for text in [Vectors.realAuthRequest, Vectors.realHeartbeat] {
      let decoded = try codec.decode(text.bytes)
      #expect(try codec.encode(decoded.message) == text.bytes)
    }
  }
}
