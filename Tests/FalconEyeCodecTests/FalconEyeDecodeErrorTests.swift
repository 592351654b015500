import FalconEyeCodec
import Foundation
import PacketKit
import Testing

/// Every structural decode error names its code, key path and wire offset.
/// Offsets come from the second script in FalconEyeVectors.swift.
@Suite struct FalconEyeDecodeErrorTests {
  let codec = FalconEyeCodec()

  func error(_ text: String) -> DecodeError? {
    do {
      _ = try codec.decode(text.bytes)
      return nil
    } catch {
      return error
    }
  }

  @Test func badJSONEnvelope() throws {
    let failure = try #require(error(#"{"type":"heartbeat","#))
    #expect(failure.code == "bad-json")
    #expect(failure.offset == 20)
    let garbage = try #require(error(#"{"type":"heartbeat"} x"#))
    #expect(garbage.code == "trailing-data")
    #expect(garbage.offset == 21)
  }

  @Test func notAnObject() throws {
    let failure = try #require(error("[1,2]"))
    #expect(failure.code == "wrong-type")
    #expect(failure.offset == 0)
    #expect(failure.expected == "object")
    #expect(failure.found == "array")
  }

  /// The real capture's last client message: the server answered it with
  /// authResponse success false.
  @Test func realPayloadThatIsNotBase64() throws {
    let failure = try #require(error(Vectors.realNotBase64))
    #expect(failure.code == "bad-base64")
    #expect(failure.keyPath == "payload")
    #expect(failure.offset == 47)
  }

  @Test func badBase64CharacterIsReportedAtItsWireOffset() throws {
    let failure = try #require(error(Vectors.badStar))
    #expect(failure.code == "bad-base64")
    #expect(failure.keyPath == "payload")
    #expect(failure.offset == 59)
  }

  @Test func missingPaddingPointsAtTheClosingQuote() throws {
    let failure = try #require(error(Vectors.noPadding))
    #expect(failure.code == "bad-base64")
    #expect(failure.offset == 48)
  }

  @Test func misplacedPaddingIsABadCharacter() throws {
    let text = #"{"type":"heartbeat","timestamp":1,"payload":"e3=0"}"#
    let failure = try #require(error(text))
    #expect(failure.code == "bad-base64")
    #expect(failure.offset == 47)  // python3: text.index("=")
  }

  /// Apple's JSONEncoder writes `/` as `\/`: such payloads decode, and an
  /// error after an escape still lands on the right wire byte.
  @Test func escapedSlashesInThePayload() throws {
    let decoded = try codec.decode(Vectors.escapedSlash.bytes)
    #expect(decoded.message.body == .authResponse(.init(success: false, error: "???>>>")))
    let failure = try #require(error(Vectors.escapedSlashBad))
    #expect(failure.code == "bad-base64")
    #expect(failure.offset == 94)
  }

  @Test func innerWrongType() throws {
    let failure = try #require(error(Vectors.fxString))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "payload.intrinsics.fx")
    #expect(failure.offset == 283)
    #expect(failure.expected == "number")
    #expect(failure.found == "string")
  }

  @Test func innerMissingKey() throws {
    let failure = try #require(error(Vectors.noIntrinsics))
    #expect(failure.code == "missing-key")
    #expect(failure.keyPath == "payload.intrinsics")
    #expect(failure.offset == 59)
  }

  @Test func nestedMissingKey() throws {
    let failure = try #require(error(Vectors.noFx))
    #expect(failure.code == "missing-key")
    #expect(failure.keyPath == "payload.intrinsics.fx")
    #expect(failure.offset == 275)
  }

  @Test func devicePoseThreeByFour() throws {
    let failure = try #require(error(Vectors.pose3x4))
    #expect(failure.code == "bad-shape")
    #expect(failure.keyPath == "payload.devicePose")
    #expect(failure.offset == 199)
    #expect(failure.expected == "4×4")
    #expect(failure.found == "3×4")
  }

  @Test func devicePoseRowOfThree() throws {
    let text =
      #"{"frameId":"f","timestamp":1,"imageData":"","devicePose":[[1,0,0,0],[0,1,0],[0,0,1,0],[0,0,0,1]],"intrinsics":{"fx":1,"fy":1,"cx":0,"cy":0,"width":1,"height":1}}"#
    let failure = try #require(error(text))
    #expect(failure.code == "bad-shape")
    #expect(failure.keyPath == "devicePose")
    #expect(failure.found == "4×3")
    #expect(failure.offset == 68)  // python3: text.index("[0,1,0]")
  }

  @Test func envelopeTypeIsNotAString() throws {
    let failure = try #require(error(Vectors.typeNumber))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "type")
    #expect(failure.offset == 8)
  }

  @Test func envelopeMissingTimestampAndPayload() throws {
    let noTimestamp = try #require(error(#"{"type":"heartbeat","payload":"e30="}"#))
    #expect(noTimestamp.code == "missing-key")
    #expect(noTimestamp.keyPath == "timestamp")
    #expect(noTimestamp.offset == 0)
    let noPayload = try #require(error(#"{"type":"heartbeat","timestamp":1}"#))
    #expect(noPayload.keyPath == "payload")
    let payloadNumber = try #require(error(#"{"type":"heartbeat","timestamp":1,"payload":7}"#))
    #expect(payloadNumber.code == "wrong-type")
    #expect(payloadNumber.keyPath == "payload")
    #expect(payloadNumber.offset == 44)  // python3: text.index("7")
  }

  @Test func unknownKindListsTheFive() throws {
    let failure = try #require(error(Vectors.videoFrame))
    #expect(failure.code == "unknown-kind")
    #expect(failure.keyPath == "type")
    #expect(failure.offset == 8)
    #expect(failure.found == "videoFrame")
    for kind in ["authRequest", "authResponse", "cameraFrame", "poseBroadcast", "heartbeat"] {
      #expect(failure.text.contains(kind))
    }
  }

  @Test func bareObjectOfNoKnownKind() throws {
    let failure = try #require(error(#"{"left":50,"right":50}"#))
    #expect(failure.code == "unknown-kind")
    #expect(failure.offset == 0)
  }

  @Test func payloadThatIsNotJSON() throws {
    let failure = try #require(error(Vectors.notJSON))
    #expect(failure.code == "bad-json")
    #expect(failure.keyPath == "payload")
    #expect(failure.offset == 45)
  }

  @Test func payloadThatIsNotAnObject() throws {
    // base64("[]") = "W10=" (python3 -c 'import base64; print(base64.b64encode(b"[]"))')
    let failure = try #require(error(#"{"type":"heartbeat","timestamp":1,"payload":"W10="}"#))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "payload")
    #expect(failure.offset == 45)  // python3: text.index("W")
  }

  @Test func fractionalWidthIsNotAnInteger() throws {
    let failure = try #require(error(Vectors.bareWidthFraction))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "intrinsics.width")
    #expect(failure.offset == 214)
    #expect(failure.expected == "integer")
  }

  @Test func jointsAreArraysOfObjects() throws {
    let text = #"{"timestamp":1,"poses":[{"personId":"p","joints":[7],"sourceDevice":"s","confidence":1}]}"#
    let failure = try #require(error(text))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "poses[0].joints[0]")
    #expect(failure.offset == 50)  // python3: text.index("7")
  }

  /// Key paths are written only for a value that is wrong: each reader
  /// takes its path as an autoclosure. These are the paths built that way.
  @Test func poseCellOfTheWrongType() throws {
    let text = Vectors.cameraFrameInner.replacingOccurrences(of: "[0,1,0,0]", with: #"[0,1,"z",0]"#)
    let failure = try #require(error(text))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "devicePose[1][2]")
    #expect(failure.offset == 124)  // python3: text.index('"z"')
    #expect(failure.text.hasPrefix("devicePose[1][2] at offset"))
    let row = Vectors.cameraFrameInner.replacingOccurrences(of: "[0,0,1,0]", with: "7")
    #expect(try #require(error(row)).keyPath == "devicePose[2]")
  }

  @Test func jointAxisOfTheWrongType() throws {
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"head","position":[0,"y",0],"confidence":1}],"sourceDevice":"s","confidence":1}]}"#
    let failure = try #require(error(text))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "poses[0].joints[0].position[1]")
    #expect(failure.offset == 79)  // python3: text.index('"y"')
    let notArray = text.replacingOccurrences(of: #"[0,"y",0]"#, with: "0")
    let second = try #require(error(notArray))
    #expect(second.keyPath == "poses[0].joints[0].position")
    #expect(second.expected == "array")
  }

  /// Inside an envelope the path starts at `payload`, and every index on
  /// the way is the element's own (not the first's).
  @Test func pathsInsideAnEnvelopeNameEachIndex() throws {
    let joint = #"{"type":"head","position":[0,0,0],"confidence":1}"#
    let bad = #"{"type":"head","position":[0,true,0],"confidence":1}"#
    let pose = #"{"personId":"p","joints":[\#(joint)],"sourceDevice":"s","confidence":1}"#
    let badPose =
      #"{"personId":"p","joints":[\#(joint),\#(joint),\#(bad)],"sourceDevice":"s","confidence":1}"#
    let inner = #"{"timestamp":1,"poses":[\#(pose),\#(badPose)]}"#
    let envelope =
      #"{"type":"poseBroadcast","timestamp":1,"payload":""# + Data(inner.utf8).base64EncodedString() + #""}"#
    let failure = try #require(error(envelope))
    #expect(failure.code == "wrong-type")
    #expect(failure.keyPath == "payload.poses[1].joints[2].position[1]")
    #expect(failure.text.hasPrefix("payload.poses[1].joints[2].position[1] at offset"))
  }

  // MARK: Limits

  @Test func innerDepthIsLimited() throws {
    let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
    let inner = #"{"timestamp":1,"poses":"# + deep + "}"
    let failure = try #require(error(inner))
    #expect(failure.code == "too-deep")
  }

  @Test func poseCountIsLimited() throws {
    let pose = #"{"personId":"p","joints":[],"sourceDevice":"s","confidence":1}"#
    let text = #"{"timestamp":1,"poses":["# + Array(repeating: pose, count: 257).joined(separator: ",") + "]}"
    let failure = try #require(error(text))
    #expect(failure.code == "too-many")
    #expect(failure.keyPath == "poses")
    #expect(failure.offset == 23)  // python3: text.index("[")
  }

  @Test func jointCountIsLimited() throws {
    let joint = #"{"type":"head","position":[0,0,0],"confidence":1}"#
    let joints = Array(repeating: joint, count: 65).joined(separator: ",")
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":["# + joints
      + #"],"sourceDevice":"s","confidence":1}]}"#
    let failure = try #require(error(text))
    #expect(failure.code == "too-many")
    #expect(failure.keyPath == "poses[0].joints")
  }

  @Test func messagesOver16MiBAreRefused() throws {
    var bytes = Array(#"{"type":"heartbeat","timestamp":1,"payload":""#.utf8)
    bytes += [UInt8](repeating: UInt8(ascii: "A"), count: 16 << 20)
    bytes += Array(#""}"#.utf8)
    do {
      _ = try codec.decode(bytes)
      Issue.record("expected an error")
    } catch {
      #expect(error.code == "too-large")
    }
  }
}
