import PacketKit

/// FalconEye's modelled device is the Aerie server, one model per WebSocket.
extension FalconEyeCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    DeviceDescription(
      name: "Aerie server", messagesToDevice: ["authRequest", "cameraFrame"],
      messagesFromDevice: ["authResponse", "poseBroadcast"], listens: ["ws"],
      settings: AerieServerSettings.schema, example: "falconeye --listen ws:127.0.0.1:8000")
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    AerieServerModel(mode: mode, settings: try AerieServerSettings(settings, mode: mode))
  }
}
