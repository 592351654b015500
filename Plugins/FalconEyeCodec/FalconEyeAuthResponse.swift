import PacketKit

/// `authResponse`: the server's answer to `authRequest`.
public struct FalconEyeAuthResponse: Sendable, Equatable {
  public var success: Bool
  public var sessionId: String?
  public var error: String?

  public init(success: Bool, sessionId: String? = nil, error: String? = nil) {
    self.success = success
    self.sessionId = sessionId
    self.error = error
  }
}

extension FalconEyeAuthResponse: FalconEyeInner {
  static let kind = FalconEyeKind.authResponse
  static let keys = ["success", "sessionId", "error"]

  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (FalconEyeAuthResponse, [DissectionNode])
  {
    var object = try reader.object(value, at: reader.root, known: keys)
    let success = try object.bool("success", reader)
    let sessionId = try object.optionalString("sessionId", reader)
    let error = try object.optionalString("error", reader)
    return (FalconEyeAuthResponse(success: success, sessionId: sessionId, error: error), object.nodes)
  }

  func validate(force: Bool) throws(EncodeError) {}

  func write(to writer: inout JSONWriter) {
    writer.raw("{\"success\":")
    writer.bool(success)
    if let sessionId {
      writer.raw(",\"sessionId\":")
      writer.string(sessionId)
    }
    if let error {
      writer.raw(",\"error\":")
      writer.string(error)
    }
    writer.raw("}")
  }
}
