import PacketKit

/// `emulate` and `analyze` play a spec's device with `SpecDeviceModel`.
extension SpecDeviceCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    let spec = program.spec
    let device = spec.device
    var settings: [ModelSettingSchema] = []
    if let device, let setting = device.checkSetting, let check = program.settingCheck(device) {
      settings.append(
        ModelSettingSchema(
          flag: setting,
          help: "the check the \(device.name) verifies and writes: "
            + check.variants.map { "\($0.name) (\($0.algorithm.rawValue))" }.joined(separator: " or "),
          kind: .choice(check.variants.map(\.name)), defaultValue: check.variants.first?.name))
    }
    let port = spec.udpPorts.first.map(String.init) ?? "29300"
    return DeviceDescription(
      name: device?.name ?? "device",
      messagesToDevice: Set(spec.messages.filter { $0.direction == .appToDevice }.map(\.name)),
      messagesFromDevice: Set(spec.messages.filter { $0.direction == .deviceToApp }.map(\.name)),
      listens: Set(device?.listens ?? ["udp"]), settings: settings,
      example: "\(spec.name) --listen udp:127.0.0.1:\(port) --spec \(spec.file)")
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    let spec = program.spec
    guard let device = spec.device else { throw ModelSettingError("\(spec.name)'s spec describes no device") }
    var variant: Int?
    if let setting = device.checkSetting, let check = program.settingCheck(device) {
      if let unknown = settings.keys.sorted().first(where: { $0 != setting }) {
        throw ModelSettingError("\(spec.name) has no setting --\(unknown); its one setting is --\(setting)")
      }
      if let given = settings[setting] {
        guard let index = check.variants.firstIndex(where: { $0.name == given.lowercased() }) else {
          throw ModelSettingError(
            "--\(setting) '\(given)' is not one of \(check.variants.map(\.name).joined(separator: ", "))")
        }
        variant = index
      } else if mode == .emulation {
        variant = 0
      }
    } else if let unknown = settings.keys.sorted().first {
      throw ModelSettingError("\(spec.name) has no setting --\(unknown)")
    }
    return SpecDeviceModel(program: program, device: device, variant: variant)
  }
}
