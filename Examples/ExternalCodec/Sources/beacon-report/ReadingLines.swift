import BeaconCodec
import PacketCapture
import PacketKit

/// Prints one line per Beacon datagram to `port`: a reading's values, an
/// ack's sequence number, or why it did not decode and at which byte.
final class ReadingLines: SimplePayloadConsumer {
  let port: UInt16
  private let codec = BeaconCodec()

  init(port: UInt16) {
    self.port = port
  }

  func payload(_ payload: Payload) {
    guard case .udp(let source, let destination) = payload.carrier, destination.port == port else { return }
    let head = "frame \(payload.frame)  \(source) → \(destination)  "
    do {
      switch try codec.decode(ByteView(unsafeBytes: payload.bytes)).message {
      case .reading(let reading):
        print(
          head + "reading \(reading.sequence): \(reading.moisture) %, "
            + "\(Double(reading.temperatureTenths) / 10) °C, \(reading.batteryMillivolts) mV")
      case .ack(let sequence):
        print(head + "ack \(sequence)")
      }
    } catch {
      print(head + "\(error.code) at byte \(error.offset.map(String.init) ?? "?"): \(error.text)")
    }
  }

  /// Transport events (TCP, WebSocket, Bluetooth) do not concern a UDP sensor.
  func event(_ event: CarrierEvent, _ context: CarrierContext) {}
}
