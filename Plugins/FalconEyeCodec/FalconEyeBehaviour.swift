import PacketKit

/// FalconEye's modelled device is the Aerie server: one model for every
/// WebSocket that reaches it, keeping its state by the path's `deviceId`.
extension FalconEyeCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    DeviceDescription(
      name: "Aerie server", messagesToDevice: ["authRequest", "cameraFrame"],
      messagesFromDevice: ["authResponse", "poseBroadcast"], listens: ["ws"],
      settings: AerieServerSettings.schema, example: "falconeye --listen ws:127.0.0.1:8000",
      identity: .endpoint, answers: .askingConnection, stateKey: "deviceId")
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    AerieServerModel(mode: mode, settings: try AerieServerSettings(settings, mode: mode))
  }
}
