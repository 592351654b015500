import Foundation
import PacketKit

/// A client message as the Aerie server reads it: its `JSONDecoder` decodes
/// the envelope (`type` one of the five kinds, `timestamp` a number,
/// `payload` base64 data) and routes by type; only an authRequest's payload
/// is decoded further. So a camera frame whose inner JSON is broken is
/// still a camera frame to the server, and a bare inner object (no
/// envelope) is a message it cannot decode.
enum AerieRequest: Equatable {
  /// `token` is nil when the payload does not decode as an AuthRequest.
  case authRequest(token: String?)
  case heartbeat
  case cameraFrame
  /// authResponse or poseBroadcast sent by the client: the server logs a
  /// warning ("unexpected message type") and answers nothing.
  case outbound(String)
  /// The envelope does not decode.
  case undecodable(String)
  /// The capture lost part of it (a TCP gap): what the server got is unknown.
  case unreadable

  init(_ message: FlowMessage) {
    if message.layerError != nil {
      self = .unreadable
      return
    }
    switch message.result {
    case .decoded(let frame):
      // A bare inner object has no top-level `type`: the server's decode fails.
      guard frame.fields.contains(where: { $0.name == "type" }) else {
        self = .undecodable("a bare \(frame.message) object without the envelope")
        return
      }
      self = Self.routed(frame.message, token: frame.fields.first(named: "token")?.value.stringValue)
    case .failed(_, let error):
      if error.code == "incomplete" {
        self = .unreadable
        return
      }
      self = Self.serverDecode(message.payload, pktbenchError: error)
    case nil:
      self = .unreadable
    }
  }

  static func routed(_ kind: String, token: String?) -> AerieRequest {
    switch kind {
    case "authRequest": .authRequest(token: token)
    case "heartbeat": .heartbeat
    case "cameraFrame": .cameraFrame
    default: .outbound(kind)
    }
  }

  /// The message kind in docs/protocols.md's words, for texts.
  var kind: String {
    switch self {
    case .authRequest: "authRequest"
    case .heartbeat: "heartbeat"
    case .cameraFrame: "cameraFrame"
    case .outbound(let kind): kind
    case .undecodable: "undecodable message"
    case .unreadable: "message"
    }
  }

  // MARK: The server's own decode

  /// The envelope as the server's `Message` struct declares it.
  private struct Envelope: Decodable {
    var type: String
    var timestamp: Double
    var payload: Data
  }

  /// The server's `AuthRequest`.
  private struct AuthRequest: Decodable {
    struct DeviceInfo: Decodable {
      var model: String
      var osVersion: String
      var hasLiDAR: Bool
    }
    var deviceId: String
    var token: String
    var deviceInfo: DeviceInfo
  }

  /// What the server reads from a message pktbench could not decode: the
  /// same Foundation decoder the server runs, so base64, number and key
  /// rules are the server's.
  private static func serverDecode(_ payload: [UInt8], pktbenchError: DecodeError) -> AerieRequest {
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(payload)) else {
      return .undecodable(pktbenchError.text)
    }
    guard
      ["authRequest", "authResponse", "cameraFrame", "poseBroadcast", "heartbeat"].contains(envelope.type)
    else { return .undecodable("type \(Excerpt.quoted(envelope.type)) is not a FalconEye message") }
    guard envelope.type == "authRequest" else { return routed(envelope.type, token: nil) }
    let inner = try? JSONDecoder().decode(AuthRequest.self, from: envelope.payload)
    return .authRequest(token: inner?.token)
  }
}
