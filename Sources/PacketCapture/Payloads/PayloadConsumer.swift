import PacketKit

/// Where a `PayloadStage` delivers, in capture order.
public protocol PayloadConsumer: AnyObject {
  /// The common packet in parts: a whole UDP datagram from one record with
  /// no diagnostics at any layer. (Others come through `payload`.)
  func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer)
  /// Any other payload.
  func payload(_ payload: Payload)
  /// Anything else the layers report.
  func event(_ event: CarrierEvent, _ context: CarrierContext)
}
