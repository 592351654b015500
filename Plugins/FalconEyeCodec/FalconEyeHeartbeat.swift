import PacketKit

/// `heartbeat`: the client sends an empty object `{}`; the server answers
/// `{"pong": true}` (seen in the real capture, with that space).
public struct FalconEyeHeartbeat: Sendable, Equatable {
  /// nil for the client's `{}`.
  public var pong: Bool?

  public init(pong: Bool? = nil) {
    self.pong = pong
  }
}

extension FalconEyeHeartbeat: FalconEyeInner {
  static let kind = FalconEyeKind.heartbeat
  static let keys = ["pong"]

  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (FalconEyeHeartbeat, [DissectionNode])
  {
    var object = try reader.object(value, at: reader.root, known: keys)
    let pong = try object.optionalBool("pong", reader)
    return (FalconEyeHeartbeat(pong: pong), object.nodes)
  }

  func validate(force: Bool) throws(EncodeError) {}

  func write(to writer: inout JSONWriter) {
    guard let pong else {
      writer.raw("{}")
      return
    }
    writer.raw("{\"pong\":")
    writer.bool(pong)
    writer.raw("}")
  }
}
