import PacketKit

/// `authRequest`: the first message the app sends on a new socket.
public struct FalconEyeAuthRequest: Sendable, Equatable {
  public var deviceId: String
  /// base64 HMAC-SHA256; see `FalconEyeAuthToken` for why nobody can check it.
  public var token: String
  public var deviceInfo: FalconEyeDeviceInfo

  public init(deviceId: String, token: String, deviceInfo: FalconEyeDeviceInfo) {
    self.deviceId = deviceId
    self.token = token
    self.deviceInfo = deviceInfo
  }
}

public struct FalconEyeDeviceInfo: Sendable, Equatable {
  public var model: String
  public var osVersion: String
  public var hasLiDAR: Bool

  public init(model: String, osVersion: String, hasLiDAR: Bool) {
    self.model = model
    self.osVersion = osVersion
    self.hasLiDAR = hasLiDAR
  }

  static let keys = ["model", "osVersion", "hasLiDAR"]
}

extension FalconEyeAuthRequest: FalconEyeInner {
  static let kind = FalconEyeKind.authRequest
  static let keys = ["deviceId", "token", "deviceInfo"]

  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (FalconEyeAuthRequest, [DissectionNode])
  {
    var object = try reader.object(value, at: reader.root, known: keys)
    let deviceId = try object.string("deviceId", reader)
    let token = try object.string("token", reader)
    let tokenJSON = try object.required("token")
    if !FalconEyeAuthToken.isAcceptedByServer(token) {
      reader.warn(
        "token-rejected",
        "token is \(token.utf8.count) characters\(FalconEyeBase64.isValid(token) ? "" : ", not valid base64"); "
          + "the server only accepts \(FalconEyeAuthToken.serverRule.description) and would refuse it",
        tokenJSON)
    }

    let infoJSON = try object.required("deviceInfo")
    let infoPath = object.path("deviceInfo")
    var info = try reader.object(infoJSON, at: infoPath, known: FalconEyeDeviceInfo.keys)
    let model = try info.string("model", reader)
    let osVersion = try info.string("osVersion", reader)
    let hasLiDAR = try info.bool("hasLiDAR", reader)
    object.add(reader.group("deviceInfo", shape: .object, infoJSON, info.nodes))

    let message = FalconEyeAuthRequest(
      deviceId: deviceId, token: token,
      deviceInfo: FalconEyeDeviceInfo(model: model, osVersion: osVersion, hasLiDAR: hasLiDAR))
    return (message, object.nodes)
  }

  func validate(force: Bool) throws(EncodeError) {
    if !force, !FalconEyeAuthToken.isAcceptedByServer(token) {
      throw EncodeError(
        code: "token-rejected",
        text: "token must be \(FalconEyeAuthToken.serverRule.description) or the server refuses it "
          + "(--force sends it anyway)",
        field: "token")
    }
  }

  func write(to writer: inout JSONWriter) {
    writer.raw("{\"deviceId\":")
    writer.string(deviceId)
    writer.raw(",\"token\":")
    writer.string(token)
    writer.raw(",\"deviceInfo\":{\"model\":")
    writer.string(deviceInfo.model)
    writer.raw(",\"osVersion\":")
    writer.string(deviceInfo.osVersion)
    writer.raw(",\"hasLiDAR\":")
    writer.bool(deviceInfo.hasLiDAR)
    writer.raw("}}")
  }
}
