import NIOCore
import PacketDecode
import PacketKit

/// `emulate` on a UDP socket: every sender reaches the one device; what it
/// sends goes to the peer its model names or, for a report, to the last
/// writer (a device that notifies whoever wrote last), and is logged as `sent` so
/// `--messages` and `-Y` see it.
extension ListenSession {
  func makeDevice() -> DeviceEmulator? {
    guard let emulation = configuration.emulation, let timeline,
      let behaviour = configuration.codecs.named(emulation.codec) as? any DeviceBehaviour,
      let model = try? behaviour.makeModel(mode: .emulation, settings: emulation.settings)
    else { return nil }
    return DeviceEmulator(
      codec: emulation.codec, description: behaviour.device, model: model, loop: loop, timeline: timeline,
      pathField: pathField)
  }

  package func emulate(_ record: DecodedRecord, from peer: SocketAddress, on channel: Channel) {
    guard let device = device(), let message = FlowMessage(record), let sender = record.source else { return }
    let local = record.destination
    device.attach(
      sender,
      DeviceEmulator.Peer(
        send: { [weak self] bytes in
          self?.sendDatagram(bytes, to: peer, peerText: sender, from: local, on: channel)
        },
        close: { _, _ in }))
    device.take(message, heading: .toDevice)
  }

  private func sendDatagram(
    _ bytes: [UInt8], to peer: SocketAddress, peerText: String, from local: String?, on channel: Channel
  ) {
    channel.writeAndFlush(
      AddressedEnvelope(remoteAddress: peer, data: channel.allocator.buffer(bytes: bytes)), promise: nil)
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: "udp", source: local,
      destination: peerText, payloadLength: bytes.count)
    record.sourcePort = UInt16(clamping: channel.localAddress?.port ?? 0)
    record.destinationPort = UInt16(clamping: peer.port ?? 0)
    record.extra = [.init("direction", .string("sent"))]
    bytes.withUnsafeBytes { payload in decoding.decode(payload, carrier: .udp, into: &record) }
    recorder.emit(record, counts: false)
  }
}
