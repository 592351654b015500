import FalconEyeCodec
import PacketKit
import Testing

/// encode is canonical: it reproduces the Python-built envelopes byte for
/// byte, and decode(encode(m)) gives m back for every kind and both forms.
@Suite struct FalconEyeRoundTripTests {
  let codec = FalconEyeCodec()

  @Test(arguments: Vectors.all)
  func encodeReproducesPythonEnvelope(text: String) throws {
    let decoded = try codec.decode(text.bytes)
    #expect(try codec.encode(decoded.message) == text.bytes)
  }

  static let messages: [FalconEyeMessage] = [
    FalconEyeMessage(
      .authRequest(
        .init(
          deviceId: "dev-1", token: "AFCmrWx5aKBFgxhbha6D7CfXAwnmrToid7LIUEFKukE=",
          deviceInfo: .init(model: "iPhone \"16\" Pro", osVersion: "iOS 18.2\n", hasLiDAR: false))),
      envelopeTimestamp: 1_700_000_000),
    FalconEyeMessage(.authResponse(.init(success: false, error: "bad token ✗")), envelopeTimestamp: 0.5),
    FalconEyeMessage(.authResponse(.init(success: true)), envelopeTimestamp: nil),
    FalconEyeMessage(
      .cameraFrame(
        .init(
          frameId: "f-9", timestamp: 1_700_000_001.0000002, imageData: "/9j/2Q==",
          devicePose: [[0.30000000000000004, -1e-7, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
          intrinsics: .init(fx: 1e3, fy: 999.75, cx: -0, cy: 720.125, width: 0, height: 1440))),
      envelopeTimestamp: 1_700_000_001.5),
    FalconEyeMessage(
      .cameraFrame(
        .init(
          frameId: "", timestamp: 2, imageData: "",
          intrinsics: .init(fx: 1, fy: 1, cx: 0, cy: 0, width: 1, height: 1))),
      envelopeTimestamp: nil),
    FalconEyeMessage(
      .poseBroadcast(
        .init(
          timestamp: 3,
          poses: [
            .init(
              personId: "p",
              joints: FalconEyeJointType.allCases.map { .init($0, position: [1, 2, 3], confidence: 1) },
              sourceDevice: "s", confidence: 0),
            .init(personId: "q", joints: [], sourceDevice: "", confidence: 0.5),
          ])),
      envelopeTimestamp: 3.25),
    FalconEyeMessage(.poseBroadcast(.init(timestamp: 0, poses: [])), envelopeTimestamp: nil),
    FalconEyeMessage(.heartbeat(.init()), envelopeTimestamp: 1),
    FalconEyeMessage(.heartbeat(.init(pong: true)), envelopeTimestamp: 1),
    FalconEyeMessage(.heartbeat(.init(pong: false)), envelopeTimestamp: nil),
  ]

  @Test(arguments: messages)
  func decodeOfEncodeIsTheMessage(message: FalconEyeMessage) throws {
    let bytes = try codec.encode(message)
    let decoded = try codec.decode(bytes)
    #expect(decoded.message == message)
    #expect(decoded.message.isBare == message.isBare)
    #expect(codec.kind(of: decoded.message) == message.kind.rawValue)
    // Re-encoding is identical.
    #expect(try codec.encode(decoded.message) == bytes)
  }

  @Test func canonicalFormHasNoSpacesAndEnvelopeKeyOrder() throws {
    let decoded = try codec.decode(Vectors.realPong.bytes)
    let text = String(decoding: try codec.encode(decoded.message), as: UTF8.self)
    #expect(text == #"{"type":"heartbeat","timestamp":1795314595.9358864,"payload":"eyJwb25nIjp0cnVlfQ=="}"#)
  }

  @Test func optionalKeysAreOmittedWhenNil() throws {
    let bytes = try codec.encode(
      FalconEyeMessage(.authResponse(.init(success: true)), envelopeTimestamp: nil))
    #expect(bytes == #"{"success":true}"#.bytes)
  }
}
