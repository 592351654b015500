import PacketKit

/// `poseBroadcast`: the skeletons the server detected, in world coordinates.
public struct FalconEyePoseBroadcast: Sendable, Equatable {
  /// Unix seconds.
  public var timestamp: Double
  public var poses: [FalconEyeDetectedPose]

  public init(timestamp: Double, poses: [FalconEyeDetectedPose]) {
    self.timestamp = timestamp
    self.poses = poses
  }

  /// Bounds on untrusted counts; a real broadcast has a few people of 13 joints.
  static let maxPoses = 256
  static let maxJoints = 64
}

public struct FalconEyeDetectedPose: Sendable, Equatable {
  public var personId: String
  public var joints: [FalconEyeJoint]
  public var sourceDevice: String
  /// 0…1.
  public var confidence: Double

  public init(personId: String, joints: [FalconEyeJoint], sourceDevice: String, confidence: Double) {
    self.personId = personId
    self.joints = joints
    self.sourceDevice = sourceDevice
    self.confidence = confidence
  }

  static let keys = ["personId", "joints", "sourceDevice", "confidence"]
}

public struct FalconEyeJoint: Sendable, Equatable {
  /// A `FalconEyeJointType` name; kept as sent so unknown names round-trip.
  public var type: String
  /// [x, y, z] in metres, world frame.
  public var position: [Double]
  /// 0…1.
  public var confidence: Double

  public init(type: String, position: [Double], confidence: Double) {
    self.type = type
    self.position = position
    self.confidence = confidence
  }

  public init(_ type: FalconEyeJointType, position: [Double], confidence: Double) {
    self.init(type: type.rawValue, position: position, confidence: confidence)
  }

  public var jointType: FalconEyeJointType? { FalconEyeJointType.named(type) }

  static let keys = ["type", "position", "confidence"]
}

/// The app's JointType enum; its raw values are the wire strings.
public enum FalconEyeJointType: String, Sendable, CaseIterable {
  case head, leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
  case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle

  static let list = allCases.map(\.rawValue).joined(separator: ", ")

  /// The joint type a wire string names (`init(rawValue:)`, faster).
  public static func named(_ name: String) -> FalconEyeJointType? { byName[name] }
  private static let byName = NameList(rawValuesOf: FalconEyeJointType.self)
}

extension FalconEyePoseBroadcast: FalconEyeInner {
  static let kind = FalconEyeKind.poseBroadcast
  static let keys = ["timestamp", "poses"]

  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (FalconEyePoseBroadcast, [DissectionNode])
  {
    var object = try reader.object(value, at: reader.root, known: keys)
    let timestamp = try object.number("timestamp", reader, unit: "s")
    let posesJSON = try object.required("poses")
    let posesPath = object.path("poses")
    let posesArray = try reader.array(posesJSON, at: posesPath.description, limit: maxPoses)
    // Arrays made at their size, not grown as filled.
    var poses: [FalconEyeDetectedPose] = []
    var poseNodes: [DissectionNode] = []
    poses.reserveCapacity(posesArray.count)
    poseNodes.reserveCapacity(posesArray.count)
    for (index, poseJSON) in posesArray.enumerated() {
      let (pose, node) = try decodePose(poseJSON, posesPath.index(index), &reader)
      poses.append(pose)
      poseNodes.append(node.renamed(DissectionNode.elementName(index)))
    }
    object.add(reader.group("poses", shape: .array, posesJSON, poseNodes))
    return (FalconEyePoseBroadcast(timestamp: timestamp, poses: poses), object.nodes)
  }

  private static func decodePose(_ json: JSONNode, _ path: FalconEyeKeyPath, _ reader: inout FalconEyeReader)
    throws(DecodeError) -> (FalconEyeDetectedPose, DissectionNode)
  {
    var object = try reader.object(json, at: path, known: FalconEyeDetectedPose.keys)
    let personId = try object.string("personId", reader)
    let jointsJSON = try object.required("joints")
    let jointsPath = object.path("joints")
    let jointsArray = try reader.array(jointsJSON, at: jointsPath.description, limit: maxJoints)
    var joints: [FalconEyeJoint] = []
    var jointNodes: [DissectionNode] = []
    joints.reserveCapacity(jointsArray.count)
    jointNodes.reserveCapacity(jointsArray.count)
    for (index, jointJSON) in jointsArray.enumerated() {
      let (joint, node) = try decodeJoint(jointJSON, jointsPath.index(index), &reader)
      joints.append(joint)
      jointNodes.append(node.renamed(DissectionNode.elementName(index)))
    }
    object.add(reader.group("joints", shape: .array, jointsJSON, jointNodes))
    let sourceDevice = try object.string("sourceDevice", reader)
    let confidence = try object.number("confidence", reader)
    checkConfidence(confidence, object, &reader)
    let pose = FalconEyeDetectedPose(
      personId: personId, joints: joints, sourceDevice: sourceDevice, confidence: confidence)
    return (pose, reader.group("pose", shape: .object, json, object.nodes))
  }

  private static func decodeJoint(_ json: JSONNode, _ path: FalconEyeKeyPath, _ reader: inout FalconEyeReader)
    throws(DecodeError) -> (FalconEyeJoint, DissectionNode)
  {
    var object = try reader.object(json, at: path, known: FalconEyeJoint.keys)
    let typeJSON = try object.required("type")
    let type = try object.string("type", reader)
    if FalconEyeJointType.named(type) == nil {
      reader.warn(
        "unknown-joint",
        "\(object.keyPath("type")) \(Excerpt.quoted(type)) is not a JointType (\(FalconEyeJointType.list)); "
          + "the app's JSONDecoder rejects the whole broadcast",
        typeJSON)
    }
    let positionJSON = try object.required("position")
    let axes = try reader.array(positionJSON, at: object.keyPath("position"), limit: 64)
    var position: [Double] = []
    var axisNodes: [DissectionNode] = []
    position.reserveCapacity(axes.count)
    axisNodes.reserveCapacity(axes.count)
    for (index, axisJSON) in axes.enumerated() {
      position.append(
        try reader.number(axisJSON, at: object.path("position").index(index).description))
      let name = index == 0 ? "x" : index == 1 ? "y" : index == 2 ? "z" : DissectionNode.elementName(index)
      axisNodes.append(reader.leaf(name, axisJSON.fieldValue, axisJSON, unit: "m"))
    }
    if position.count != 3 {
      reader.warn(
        "bad-shape",
        "\(object.keyPath("position")) has \(position.count) numbers; the app reads [x, y, z] and fails on fewer",
        positionJSON)
    }
    object.add(reader.group("position", shape: .array, positionJSON, axisNodes))
    let confidence = try object.number("confidence", reader)
    checkConfidence(confidence, object, &reader)
    return (
      FalconEyeJoint(type: type, position: position, confidence: confidence),
      reader.group("joint", shape: .object, json, object.nodes)
    )
  }

  private static func checkConfidence(
    _ confidence: Double, _ object: FalconEyeObject, _ reader: inout FalconEyeReader
  ) {
    guard !(0...1).contains(confidence) else { return }
    var object = object
    guard let json = object.optional("confidence") else { return }
    reader.warn(
      "out-of-range",
      "\(object.keyPath("confidence")) \(JSONWriter.formatNumber(confidence)) is outside 0…1", json)
  }

  func validate(force: Bool) throws(EncodeError) {
    try FalconEyeCheck.finite(timestamp, "timestamp")
    for pose in poses {
      try FalconEyeCheck.confidence(pose.confidence, "confidence", force: force)
      for joint in pose.joints {
        try FalconEyeCheck.confidence(joint.confidence, "confidence", force: force)
        for axis in joint.position { try FalconEyeCheck.finite(axis, "position") }
        if !force, joint.jointType == nil {
          throw EncodeError(
            code: "unknown-joint",
            text: "joint \(JSONWriter.quoted(joint.type)) is not one of \(FalconEyeJointType.list)",
            field: "joint")
        }
        if !force, joint.position.count != 3 {
          throw EncodeError(
            code: "bad-shape", text: "a joint position is [x, y, z], not \(joint.position.count) numbers",
            field: "position")
        }
      }
    }
  }

  func write(to writer: inout JSONWriter) {
    writer.raw("{\"timestamp\":")
    writer.number(timestamp)
    writer.raw(",\"poses\":[")
    for (p, pose) in poses.enumerated() {
      if p > 0 { writer.raw(",") }
      writer.raw("{\"personId\":")
      writer.string(pose.personId)
      writer.raw(",\"joints\":[")
      for (j, joint) in pose.joints.enumerated() {
        if j > 0 { writer.raw(",") }
        writer.raw("{\"type\":")
        writer.string(joint.type)
        writer.raw(",\"position\":[")
        for (a, axis) in joint.position.enumerated() {
          if a > 0 { writer.raw(",") }
          writer.number(axis)
        }
        writer.raw("],\"confidence\":")
        writer.number(joint.confidence)
        writer.raw("}")
      }
      writer.raw("],\"sourceDevice\":")
      writer.string(pose.sourceDevice)
      writer.raw(",\"confidence\":")
      writer.number(pose.confidence)
      writer.raw("}")
    }
    writer.raw("]}")
  }
}

extension DissectionNode {
  func renamed(_ name: String) -> DissectionNode {
    var node = self
    node.name = name
    return node
  }
}
