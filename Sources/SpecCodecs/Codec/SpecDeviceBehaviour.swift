import PacketKit

/// `emulate` and `analyze` play a spec's device with `SpecDeviceModel`.
extension SpecDeviceCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    let device = program.device
    var settings: [ModelSettingSchema] = []
    if let device, let setting = device.checkSetting, let variants = program.checkVariants(parameter: setting)
    {
      settings.append(
        ModelSettingSchema(
          flag: setting,
          help: "the check the \(device.name) verifies and writes: "
            + variants.map { "\($0.name) (\($0.label))" }.joined(separator: " or "),
          kind: .choice(variants.map(\.name)), defaultValue: variants.first?.name))
    }
    let port = program.udpPorts.first.map(String.init) ?? "29300"
    return DeviceDescription(
      name: device?.name ?? "device",
      messagesToDevice: Set(program.kinds.filter { $0.direction == .appToDevice }.map(\.name)),
      messagesFromDevice: Set(program.kinds.filter { $0.direction == .deviceToApp }.map(\.name)),
      listens: Set(device?.listens ?? ["udp"]), settings: settings,
      example: "\(program.name) --listen udp:127.0.0.1:\(port) --spec \(program.file)")
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    guard let device = program.device else {
      throw ModelSettingError("\(program.name)'s spec describes no device")
    }
    var variant: Int?
    if let setting = device.checkSetting, let variants = program.checkVariants(parameter: setting) {
      if let unknown = settings.keys.sorted().first(where: { $0 != setting }) {
        throw ModelSettingError(
          "\(program.name) has no setting --\(unknown); its one setting is --\(setting)")
      }
      if let given = settings[setting] {
        guard let index = variants.firstIndex(where: { $0.name == given.lowercased() }) else {
          throw ModelSettingError(
            "--\(setting) '\(given)' is not one of \(variants.map(\.name).joined(separator: ", "))")
        }
        variant = index
      } else if mode == .emulation {
        variant = 0
      }
    } else if let unknown = settings.keys.sorted().first {
      throw ModelSettingError("\(program.name) has no setting --\(unknown)")
    }
    return SpecDeviceModel(program: program, device: device, variant: variant)
  }
}
