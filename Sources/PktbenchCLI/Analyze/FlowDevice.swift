import CodecRegistry
import PacketKit

/// The device model of one flow and which end of the flow the device is.
/// A modelled device is the end that listens (the WebSocket server, the
/// UDP port's owner, the GATT server): a WebSocket handshake names it, and
/// otherwise the first message only one side sends does.
final class FlowDevice {
  let codec: String
  let description: DeviceDescription
  var model: any DeviceModel
  /// The device's endpoint, once known.
  private(set) var endpoint: String?

  init?(codec: String, mode: ModelMode = .analysis, settings: ModelSettings = [:]) {
    guard let behaviour = Codecs.named(codec) as? any DeviceBehaviour,
      let model = try? behaviour.makeModel(mode: mode, settings: settings)
    else { return nil }
    self.codec = codec
    self.description = behaviour.device
    self.model = model
  }

  func take(_ message: FlowMessage) -> [DeviceEvent] {
    guard let heading = heading(of: message) else { return [] }
    return model.take(message, heading: heading)
  }

  func advance(to time: Double) -> [DeviceEvent] {
    model.advance(to: time)
  }

  func finish(end: Double?) -> [DeviceEvent] {
    model.finish(end: end)
  }

  private func heading(of message: FlowMessage) -> Heading? {
    if endpoint == nil {
      if message.eventName == "ws.handshake" {
        endpoint = message.destination
      } else if message.eventName == "ws.accept" {
        endpoint = message.source
      } else if let kind = message.message {
        if description.messagesToDevice.contains(kind) {
          endpoint = message.destination
        } else if description.messagesFromDevice.contains(kind) {
          endpoint = message.source
        }
      }
    }
    guard let endpoint else { return nil }
    if message.destination == endpoint { return .toDevice }
    if message.source == endpoint { return .fromDevice }
    return nil
  }
}
