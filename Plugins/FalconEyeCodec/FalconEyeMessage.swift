import PacketKit

/// The five message kinds, named as the envelope's `type` names them.
public enum FalconEyeKind: String, Sendable, CaseIterable {
  case authRequest, authResponse, cameraFrame, poseBroadcast, heartbeat

  static let list = allCases.map(\.rawValue).joined(separator: ", ")

  /// The kind the envelope's `type` names (`init(rawValue:)`, faster).
  static func named(_ name: String) -> FalconEyeKind? { byName[name] }
  private static let byName = NameList(rawValuesOf: FalconEyeKind.self)
}

/// A FalconEye message (docs/protocols.md §4): one inner message, either wrapped
/// in the `{"type", "timestamp", "payload"}` envelope the app and the server
/// exchange, or bare, as the design document shows the structs.
public struct FalconEyeMessage: Sendable, Equatable {
  public enum Body: Sendable, Equatable {
    case authRequest(FalconEyeAuthRequest)
    case authResponse(FalconEyeAuthResponse)
    case cameraFrame(FalconEyeCameraFrame)
    case poseBroadcast(FalconEyePoseBroadcast)
    case heartbeat(FalconEyeHeartbeat)
  }

  public var body: Body
  /// The envelope's `timestamp` (Unix seconds); nil for a bare inner object,
  /// which then encodes bare again so round trips hold.
  public var envelopeTimestamp: Double?

  public init(_ body: Body, envelopeTimestamp: Double?) {
    self.body = body
    self.envelopeTimestamp = envelopeTimestamp
  }

  /// Whether the message came (and encodes) without the envelope.
  public var isBare: Bool { envelopeTimestamp == nil }

  public var kind: FalconEyeKind {
    switch body {
    case .authRequest: .authRequest
    case .authResponse: .authResponse
    case .cameraFrame: .cameraFrame
    case .poseBroadcast: .poseBroadcast
    case .heartbeat: .heartbeat
    }
  }
}

/// Each inner message decodes from a JSON object and writes its canonical
/// JSON: keys in the order of the app's struct declarations, no spaces,
/// optional keys left out when nil (as Swift's JSONEncoder does).
protocol FalconEyeInner: Sendable, Equatable {
  static var kind: FalconEyeKind { get }
  /// Every key of the object, in declaration order.
  static var keys: [String] { get }

  /// Reads the object `value`; nodes come back in wire order.
  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (Self, [DissectionNode])

  /// Refuses values the app or server cannot take. Structural problems
  /// (non-finite numbers, a pose matrix that is not 4×4) are refused even
  /// when forced; range problems only when not.
  func validate(force: Bool) throws(EncodeError)

  func write(to writer: inout JSONWriter)
}

extension FalconEyeMessage.Body {
  /// The inner message's canonical JSON, written into `writer`.
  func write(to writer: inout JSONWriter) {
    switch self {
    case .authRequest(let body): body.write(to: &writer)
    case .authResponse(let body): body.write(to: &writer)
    case .cameraFrame(let body): body.write(to: &writer)
    case .poseBroadcast(let body): body.write(to: &writer)
    case .heartbeat(let body): body.write(to: &writer)
    }
  }

  /// Room for the inner JSON: a camera frame's image and the rest.
  var estimatedJSONCount: Int {
    if case .cameraFrame(let frame) = self { return frame.imageData.textCount + 1024 }
    return 1024
  }
}

/// Checks shared by the inner messages' `validate`.
enum FalconEyeCheck {
  static func finite(_ value: Double, _ field: String) throws(EncodeError) {
    guard value.isFinite else {
      throw EncodeError(
        code: "not-finite", text: "\(field) is \(value); JSON has no such number", field: field)
    }
  }

  static func confidence(_ value: Double, _ field: String, force: Bool) throws(EncodeError) {
    try finite(value, field)
    if !force, !(0...1).contains(value) {
      throw .outOfRange(field, JSONWriter.formatNumber(value), allowed: "0…1")
    }
  }
}
