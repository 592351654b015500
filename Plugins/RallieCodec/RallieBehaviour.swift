import PacketKit

/// The Rallie machine as `analyze` and `emulate` see it: it gets commands
/// and sends responses; a UDP socket stands in for the BLE link (as the
/// LegCtrl firmware's recordings do).
extension RallieCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    DeviceDescription(
      name: "machine", messagesToDevice: ["command"], messagesFromDevice: ["response"], listens: ["udp"],
      settings: [
        ModelSettingSchema(
          flag: Self.checksumSetting,
          help: "the check the machine verifies and writes: xor (v0.3 firmware) or modbus16lo "
            + "(low byte of CRC-16/MODBUS, later firmware)",
          kind: .choice(RallieCheckVariant.allCases.map(\.rawValue)),
          defaultValue: RallieCheckVariant.xor.rawValue)
      ],
      example: "rallie --listen udp:127.0.0.1:29100 --checksum xor")
  }

  static let checksumSetting = "checksum"

  /// In emulation the machine speaks `--checksum` (XOR when not given). In
  /// analysis a missing `--checksum` leaves the machine's check to be
  /// learnt from its responses.
  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError)
    -> any DeviceModel
  {
    if let unknown = settings.keys.sorted().first(where: { $0 != Self.checksumSetting }) {
      throw ModelSettingError(
        "rallie has no setting --\(unknown); its one setting is --checksum xor|modbus16lo")
    }
    var checksum: RallieCheckVariant?
    if let given = settings[Self.checksumSetting] {
      guard let variant = RallieCheckVariant(rawValue: given.lowercased()) else {
        throw ModelSettingError(
          "--checksum '\(given)' is not a Rallie check variant; use xor (v0.3 firmware) or modbus16lo (later firmware)"
        )
      }
      checksum = variant
    } else if mode == .emulation {
      checksum = .xor
    }
    return RallieModel(mode: mode, checksum: checksum)
  }
}
