import PacketKit

extension RiderCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    DeviceDescription(
      name: "robot", messagesToDevice: ["drive", "legacy", "move"], messagesFromDevice: [],
      listens: ["udp"], example: "rider --listen udp:127.0.0.1:5005", identity: .endpoint, answers: .nobody)
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    if let unknown = settings.keys.sorted().first {
      throw ModelSettingError("the rider robot takes no settings, but --\(unknown) was given")
    }
    return RiderRobotModel(mode: mode)
  }
}
