import PacketKit

/// Bluetooth records (btsnoop, PacketLogger, or pcap with an HCI or Link
/// Layer link type) go through the HCI/L2CAP/ATT decoder: ATT values are
/// payloads, the rest events.
extension PayloadStage {
  /// One Bluetooth record; `flags` as btsnoop gives them (0 for pcap).
  public func processBluetooth(
    _ linkType: BluetoothLinkType, frame: Int, time: Double, flags: UInt32, data: UnsafeRawBufferPointer
  ) {
    lastFrame = frame
    lastTime = time
    if options.tracksCarrierFrames { frames.bluetooth(linkType, frame: frame, flags: flags, data: data) }
    // Values are views of `data`: each is delivered before the next record.
    bluetooth.decodeBorrowing(linkType, frame: frame, time: time, flags: flags, data: data) {
      self.handleBluetooth($0)
    }
  }

  func handleBluetooth(_ event: BluetoothEvent) {
    switch event {
    case .attValue(let value):
      if options.tracksCarrierFrames {
        var context = context
        context.otherFrames = frames.aclFrames(handle: value.connectionHandle, first: value.frame)
        value.withValueBytes { consumer.attValue(value, bytes: $0, context: context) }
      } else {
        // No context to pass: a Bluetooth record names no process.
        value.withValueBytes { consumer.attValue(value, bytes: $0) }
      }
    case .att(let operation):
      var context = context
      if options.tracksCarrierFrames {
        context.otherFrames = frames.aclFrames(handle: operation.connectionHandle, first: operation.frame)
      }
      consumer.event(.att(operation), context)
    case .connection(let change):
      deliver(.bluetoothConnection(change))
    case .hci(let frame, let time, let kind):
      deliver(.hci(frame: frame, time: time, kind: kind))
    case .damaged(let frame, let time, let layer, let offset, let text):
      deliver(.damaged(frame: frame, time: time, layer: layer, offset: offset, text: text))
    case .undecoded(let frame, let time, let reason):
      deliver(.undecoded(frame: frame, time: time, reason: reason))
    case .log(let entry):
      deliver(.log(entry))
    }
  }
}
