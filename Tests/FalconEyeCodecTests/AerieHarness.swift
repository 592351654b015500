import FalconEyeCodec
import Foundation
import PacketKit

/// Feeds the Aerie server model as `analyze` and `emulate` do: time passes
/// first (`advance` when the deadline is due), then the record; the
/// client's messages `.toDevice`, the server's `.fromDevice`.
struct AerieHarness {
  static let client = "127.0.0.1:50000"
  static let server = "127.0.0.1:8000"
  /// The 101 of the harness's socket.
  static let accept = 1_795_671_700.0

  let codec = FalconEyeCodec()
  var model: any DeviceModel
  var frame = 0
  var events: [DeviceEvent] = []

  init(_ mode: ModelMode = .analysis, _ settings: ModelSettings = [:]) throws {
    model = try FalconEyeCodec().makeModel(mode: mode, settings: settings)
  }

  /// Time passes to `time` as the drivers do it.
  @discardableResult
  mutating func advance(to time: Double) -> [DeviceEvent] {
    guard let deadline = model.nextDeadline, deadline <= time else { return [] }
    let made = model.advance(to: time)
    events += made
    return made
  }

  @discardableResult
  mutating func feed(_ message: FlowMessage, _ heading: Heading) -> [DeviceEvent] {
    var made = advance(to: message.time)
    let taken = model.take(message, heading: heading)
    events += taken
    made += taken
    return made
  }

  mutating func nextFrame() -> Int {
    frame += 1
    return frame
  }

  /// The server's 101, `at` seconds after `accept`.
  @discardableResult
  mutating func opened(at offset: Double = 0) -> [DeviceEvent] {
    let message = FlowMessage(
      frame: nextFrame(), time: Self.accept + offset, source: Self.server, destination: Self.client,
      transport: "websocket", event: ("ws.accept", [.init("status", .integer(101))]))
    return feed(message, .fromDevice)
  }

  /// A client message (its bytes decoded as `analyze` decodes them).
  @discardableResult
  mutating func client(_ bytes: [UInt8], at offset: Double) -> [DeviceEvent] {
    feed(message(bytes, at: offset, fromClient: true), .toDevice)
  }

  @discardableResult
  mutating func client(_ text: String, at offset: Double) -> [DeviceEvent] {
    client(Array(text.utf8), at: offset)
  }

  @discardableResult
  mutating func server(_ text: String, at offset: Double) -> [DeviceEvent] {
    feed(message(Array(text.utf8), at: offset, fromClient: false), .fromDevice)
  }

  /// A close frame from `by` ("client" or "server").
  @discardableResult
  mutating func close(_ code: Int, by: String, at offset: Double) -> [DeviceEvent] {
    let fromClient = by == "client"
    let message = FlowMessage(
      frame: nextFrame(), time: Self.accept + offset, source: fromClient ? Self.client : Self.server,
      destination: fromClient ? Self.server : Self.client, transport: "websocket",
      event: (
        "ws.close",
        [.init("by", .string(by)), .init("code", .integer(Int64(code))), .init("reason", .string(""))]
      ))
    return feed(message, fromClient ? .toDevice : .fromDevice)
  }

  mutating func finish(end: Double? = nil) -> [DeviceEvent] {
    let made = model.finish(end: end)
    events += made
    return made
  }

  mutating func message(_ bytes: [UInt8], at offset: Double, fromClient: Bool) -> FlowMessage {
    FlowMessage(
      frame: nextFrame(), time: Self.accept + offset, source: fromClient ? Self.client : Self.server,
      destination: fromClient ? Self.server : Self.client, transport: "websocket", codec: "falconeye",
      result: codec.decodeFrame(bytes), payload: bytes)
  }

  // MARK: Messages

  static let codec = FalconEyeCodec()

  /// An authRequest with `token` (a well-shaped one by default).
  static func auth(token: String = Vectors.clientToken, timestamp: Double = accept) -> [UInt8] {
    (try? codec.craft(
      "authRequest",
      values: CraftValues(
        [
          "deviceId": .string(Vectors.deviceId), "token": .string(token), "timestamp": .number(timestamp),
        ], force: true))) ?? []
  }

  static func heartbeat() -> [UInt8] { Array(Vectors.heartbeatClient.utf8) }

  static func cameraFrame() -> [UInt8] { Array(Vectors.cameraFrame.utf8) }

  /// A camera frame of exactly `bytes` bytes: the envelope, then JSON
  /// whitespace.
  static func cameraFrame(bytes: Int) -> [UInt8] {
    let envelope = Array(Vectors.cameraFrame.utf8)
    return envelope + [UInt8](repeating: 0x20, count: max(0, bytes - envelope.count))
  }

  /// The events named `name`.
  func named(_ name: String) -> [DeviceEvent] { events.filter { $0.name == name } }

  func session(_ event: DeviceEvent?) -> String? { event?.state("session")?.stringValue }
}

/// Messages the real Aerie server wrote, from the recordings.
enum AerieVectors {
  /// send-vs-aerie.pcap frame 18: the notAuthenticated error report.
  static let notAuthenticated =
    #"{"payload":"eyJzdWNjZXNzIjpmYWxzZSwiZXJyb3IiOiJUaGUgb3BlcmF0aW9uIGNvdWxkIG5vdCBiZSBjb21wbGV0ZWQuIChBZXJpZS5NZXNzYWdlRXJyb3IgZXJyb3IgMS4pIn0=","timestamp":1795671701.5263724,"type":"authResponse"}"#
  /// The pong's payload as the server writes it: base64 of `{"pong": true}`
  /// (aerie-real-session.pcap frame 27, send-vs-aerie.pcap frame 12).
  static let pongPayload = "eyJwb25nIjogdHJ1ZX0="
  /// The error texts in the server's words (send-vs-aerie.server.log and
  /// aerie-real-session.expected.json).
  static let notAuthenticatedText = "The operation could not be completed. (Aerie.MessageError error 1.)"
  static let malformedText =
    "The operation could not be completed. The data isn\u{2019}t in the correct format."
  /// An envelope's payload decoded: the inner JSON.
  static func inner(_ bytes: [UInt8]) -> [String: Any]? {
    guard let envelope = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
      let payload = envelope["payload"] as? String, let data = Data(base64Encoded: payload)
    else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  static func payload(_ bytes: [UInt8]) -> String? {
    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["payload"] as? String
  }
}
