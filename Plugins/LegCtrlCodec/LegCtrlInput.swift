/// A record the firmware took, held by the analysis until the next
/// telemetry shows what the firmware made of it.
struct LegCtrlInput: Sendable {
  enum Kind: Sendable {
    /// A write to the command characteristic, as it travelled.
    case write([UInt8])
    /// The BLE link dropped or came up where the capture shows it (an HCI
    /// trace records both); over UDP the link is invisible.
    case linkDown
    case linkUp
  }

  var frame: Int?
  var time: Double
  var kind: Kind
}
