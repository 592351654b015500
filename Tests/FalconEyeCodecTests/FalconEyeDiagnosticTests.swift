import FalconEyeCodec
import PacketKit
import Testing

/// Values that are well formed but wrong decode, with a warning or note.
@Suite struct FalconEyeDiagnosticTests {
  let codec = FalconEyeCodec()

  func frame(imageData: String) -> String {
    #"{"frameId":"f","timestamp":1,"imageData":""# + imageData
      + #"","devicePose":[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"#
      + #""intrinsics":{"fx":1,"fy":1,"cx":0,"cy":0,"width":1,"height":1}}"#
  }

  func codes(_ decoded: Decoded<FalconEyeMessage>) -> [String] {
    decoded.diagnostics.map(\.code).filter { $0 != "bare-inner" }
  }

  @Test func imageDataThatIsNotBase64() throws {
    let text = frame(imageData: "not*base64")
    let decoded = try codec.decode(text.bytes)
    #expect(codes(decoded) == ["not-jpeg"])
    #expect(decoded.diagnostics.first { $0.code == "not-jpeg" }?.severity == .warning)
    #expect(decoded.fields.first(named: "imageData")?.value == .string("not base64 (10 characters)"))
    // The warning marks the imageData string; python3: text.index('"not*')
    let start = 41
    #expect(decoded.diagnostics.first { $0.code == "not-jpeg" }?.range == start..<start + 12)
  }

  @Test func imageDataThatIsAPNG() throws {
    // python3 -c 'import base64; print(base64.b64encode(bytes.fromhex("89504e470d0a1a0a")).decode())'
    let decoded = try codec.decode(frame(imageData: "iVBORw0KGgo=").bytes)
    #expect(codes(decoded) == ["not-jpeg"])
    #expect(decoded.fields.first(named: "imageData")?.value == .string("8 bytes, not JPEG (89 50 … 1A 0A)"))
  }

  /// imageData as it comes: escaped (Apple's JSONSerialization writes "\/"),
  /// canonical base64, base64 with stray bits, not base64. Each keeps the
  /// image the server would decode, and re-encodes to its own text
  /// (unescaped). Vectors from python3 base64.b64decode.
  @Test func imageDataInEveryForm() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
    let forms: [(wire: String, text: String, bytes: [UInt8]?, warnings: [String])] = [
      ("/9j/2Q==", "/9j/2Q==", jpeg, []),
      (#"\/9j\/2Q=="#, "/9j/2Q==", jpeg, []),
      ("/9j/2R==", "/9j/2R==", jpeg, []),
      ("not*base64", "not*base64", nil, ["not-jpeg"]),
    ]
    for form in forms {
      let decoded = try codec.decode(frame(imageData: form.wire).bytes)
      #expect(codes(decoded) == form.warnings, "\(form.wire)")
      guard case .cameraFrame(let frame) = decoded.message.body else {
        Issue.record("\(form.wire) is not a camera frame")
        continue
      }
      #expect(frame.imageData.text == form.text, "\(form.wire)")
      #expect(frame.imageBytes == form.bytes, "\(form.wire)")
      let again = try codec.encode(decoded.message)
      #expect(String(decoding: again, as: UTF8.self).contains(#""imageData":""# + form.text + "\""))
      #expect(try codec.decode(again).message == decoded.message, "\(form.wire)")
    }
  }

  @Test func framesOver500KBAndOverTheServerLimit() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0x55, count: 400_000) + [0xFF, 0xD9]
    let big = try codec.craft(
      "frame", values: CraftValues(["imageData": .bytes(jpeg), "timestamp": .number(1)]))
    #expect(big.count > 500_000)
    let decoded = try codec.decode(big)
    #expect(codes(decoded) == ["frame-size", "server-frame-limit"])
    #expect(decoded.diagnostics.allSatisfy { $0.range == 0..<big.count })
  }

  /// The real capture: a 16,429-byte cameraFrame was closed with 1009.
  @Test func framesOverVaporsSixteenKiB() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0x55, count: 12_000) + [0xFF, 0xD9]
    let bytes = try codec.craft(
      "frame", values: CraftValues(["imageData": .bytes(jpeg), "timestamp": .number(1)]))
    #expect(bytes.count > 16_384)
    #expect(codes(try codec.decode(bytes)) == ["server-frame-limit"])
    let small = try codec.decode(Vectors.cameraFrame.bytes)
    #expect(codes(small).isEmpty)
  }

  @Test func unknownJointType() throws {
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"nose","position":[0,0,1],"confidence":0.5}],"sourceDevice":"s","confidence":0.5}]}"#
    let decoded = try codec.decode(text.bytes)
    #expect(codes(decoded) == ["unknown-joint"])
    let warning = try #require(decoded.diagnostics.first { $0.code == "unknown-joint" })
    for name in [
      "head", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist",
      "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle",
    ] {
      #expect(warning.text.contains(name))
    }
    guard case .poseBroadcast(let broadcast) = decoded.message.body else {
      Issue.record("expected poseBroadcast")
      return
    }
    #expect(broadcast.poses.first?.joints.first?.type == "nose")
    #expect(broadcast.poses.first?.joints.first?.jointType == nil)
  }

  @Test func confidenceOutsideZeroToOne() throws {
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"head","position":[0,0,1],"confidence":1.5}],"sourceDevice":"s","confidence":-0.1}]}"#
    let decoded = try codec.decode(text.bytes)
    #expect(codes(decoded) == ["out-of-range", "out-of-range"])
    let ok =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"head","position":[0,0,1],"confidence":1}],"sourceDevice":"s","confidence":0}]}"#
    #expect(codes(try codec.decode(ok.bytes)).isEmpty)
  }

  @Test func positionThatIsNotXYZ() throws {
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"head","position":[0,1],"confidence":1}],"sourceDevice":"s","confidence":1}]}"#
    let decoded = try codec.decode(text.bytes)
    #expect(codes(decoded) == ["bad-shape"])
    let shape = try #require(decoded.diagnostics.first { $0.code == "bad-shape" })
    #expect(shape.text.hasPrefix("poses[0].joints[0].position has 2 numbers"))
  }

  /// Array elements are named [0], [1] … and a joint's axes x, y, z; a
  /// warning about a key names its full path.
  @Test func poseNamesAndPaths() throws {
    let text =
      #"{"timestamp":1,"poses":[{"personId":"p","joints":[{"type":"head","position":[0,1,2,3],"confidence":1,"v":1}],"sourceDevice":"s","confidence":1}]}"#
    let decoded = try codec.decode(text.bytes)
    let poses = try #require(decoded.fields.first { $0.name == "poses" })
    let pose = try #require(poses.children.first)
    #expect(pose.name == "[0]")
    let joints = try #require(pose.children.first { $0.name == "joints" })
    let joint = try #require(joints.children.first)
    #expect(joint.name == "[0]")
    let position = try #require(joint.children.first { $0.name == "position" })
    #expect(position.children.map(\.name) == ["x", "y", "z", "[3]"])
    let unknown = try #require(decoded.diagnostics.first { $0.code == "unknown-key" })
    #expect(unknown.text.hasPrefix("poses[0].joints[0].v is not a field of this message"))
    let matrix = try codec.decode(Vectors.cameraFrameInner.bytes)
    let devicePose = try #require(matrix.fields.first { $0.name == "devicePose" })
    #expect(devicePose.children.map(\.name) == ["[0]", "[1]", "[2]", "[3]"])
    #expect(devicePose.children[3].children.map(\.name) == ["[0]", "[1]", "[2]", "[3]"])
  }

  func auth(token: String) -> String {
    #"{"deviceId":"d","token":""# + token
      + #"","deviceInfo":{"model":"m","osVersion":"o","hasLiDAR":true}}"#
  }

  @Test(arguments: ["short", "abc$defghijklmnopq", String(repeating: "AAAA", count: 65), "AAAAAAAAAAAA"])
  func tokensTheServerRejects(token: String) throws {
    let decoded = try codec.decode(auth(token: token).bytes)
    #expect(codes(decoded) == ["token-rejected", "token-unverifiable"])
  }

  @Test(arguments: ["AAAAAAAAAAAAAAAA", String(repeating: "AAAA", count: 64), Vectors.clientToken])
  func tokensTheServerAccepts(token: String) throws {
    let decoded = try codec.decode(auth(token: token).bytes)
    #expect(codes(decoded) == ["token-unverifiable"])
  }

  @Test func everyAuthExchangeCarriesTheSecurityNote() throws {
    for text in [Vectors.authRequest, Vectors.authResponse, Vectors.realAuthRequest, Vectors.realAuthFailure]
    {
      let decoded = try codec.decode(text.bytes)
      let note = try #require(decoded.diagnostics.first { $0.code == "token-unverifiable" })
      #expect(note.severity == .note)
      #expect(note.text.contains("never"))
      #expect(note.text.contains("timestamp"))
    }
    let request = try codec.decode(Vectors.authRequest.bytes)
    let note = request.diagnostics.first { $0.code == "token-unverifiable" }
    #expect(note?.range == request.fields.first(named: "token")?.range)
    for text in [Vectors.cameraFrame, Vectors.heartbeatClient, Vectors.poseBroadcast] {
      #expect(try codec.decode(text.bytes).diagnostics.allSatisfy { $0.code != "token-unverifiable" })
    }
  }

  /// The note points at the auth message's own token, inside the payload,
  /// even when the envelope carries an unknown key of that name first.
  @Test func theSecurityNotePointsAtThePayloadsToken() throws {
    let request = try codec.decode(Vectors.authRequest.bytes)
    let payload = try #require(request.fields.first { $0.name == "payload" })
    let token = try #require(payload.children.first { $0.name == "token" })
    let text = Vectors.authRequest.replacingOccurrences(
      of: #"{"type":"authRequest","#, with: #"{"type":"authRequest","token":"decoy","#)
    #expect(text != Vectors.authRequest)
    let decoded = try codec.decode(text.bytes)
    let note = try #require(decoded.diagnostics.first { $0.code == "token-unverifiable" })
    let shift = #""token":"decoy","#.utf8.count
    #expect(note.range == token.range.lowerBound + shift..<token.range.upperBound + shift)
  }

  @Test func unknownAndDuplicateKeys() throws {
    let decoded = try codec.decode(#"{"success":true,"success":false,"extra":[1]}"#.bytes)
    #expect(codes(decoded) == ["duplicate-key", "unknown-key", "token-unverifiable"])
    #expect(decoded.message.body == .authResponse(.init(success: true)))
    // The unknown key still shows in the dissection.
    #expect(decoded.fields.map(\.name) == ["success", "extra"])
    let envelope = try codec.decode(#"{"type":"heartbeat","timestamp":1,"payload":"e30=","v":2}"#.bytes)
    #expect(codes(envelope) == ["unknown-key"])
  }

  /// An object of more than 16 members finds its repeated keys with a set,
  /// a small one by comparing keys: both read the first and warn in order.
  @Test func repeatedKeysInALargeObject() throws {
    let extras = (0..<20).map { "\"x\($0)\":\($0)" }.joined(separator: ",")
    let text = #"{"success":true,"# + extras + #","success":false,"x3":5}"#
    let decoded = try codec.decode(text.bytes)
    let expected =
      Array(repeating: "unknown-key", count: 20) + ["duplicate-key", "duplicate-key", "token-unverifiable"]
    #expect(codes(decoded) == expected)
    #expect(decoded.message.body == .authResponse(.init(success: true)))
    let repeated = decoded.diagnostics.filter { $0.code == "duplicate-key" }.map(\.text)
    #expect(repeated.count == 2)
    #expect(repeated.first?.hasPrefix("success appears more than once") == true)
    #expect(repeated.last?.hasPrefix("x3 appears more than once") == true)
    // The unknown keys show in the dissection once each, in wire order.
    #expect(decoded.fields.map(\.name) == ["success"] + (0..<20).map { "x\($0)" })
  }

  @Test func nullOptionalsAreAbsent() throws {
    let decoded = try codec.decode(#"{"success":true,"sessionId":null,"error":null}"#.bytes)
    #expect(decoded.message.body == .authResponse(.init(success: true)))
  }
}
