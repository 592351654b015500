import PacketKit

/// LegCtrl's device is its firmware: `analyze` predicts it, `emulate` is it.
extension LegCtrlCodec: DeviceBehaviour {
  public var device: DeviceDescription {
    DeviceDescription(
      name: "firmware",
      // The firmware sends nothing but TELEMETRY, so any other message is
      // written to it; `unknown` covers what `decode` calls a command with
      // an unexpected payload (ARM 01 01 02 00 AA BB), which the firmware runs.
      messagesToDevice: ["arm", "disarm", "set_servo_ch0", "ping", "unknown"],
      messagesFromDevice: ["telemetry"],
      listens: ["udp"],
      settings: [
        // Help lines are shown whole in 80 columns: `--flag VALUE  help (default …)`.
        // The firmware's ADC stub reports 7400 mV, as the recordings show.
        ModelSettingSchema(
          flag: "battery-mv", help: "battery_mv the telemetry reports", kind: .value("MILLIVOLTS"),
          defaultValue: "7400"),
        // As the recordings' injected PCA9685 failure: FAULT/I2C_FAULT.
        ModelSettingSchema(
          flag: "i2c-fail-us", help: "a servo pulse whose I²C write fails: I2C_FAULT",
          kind: .value("MICROSECONDS")),
      ],
      example: "legctrl --listen udp:127.0.0.1:29000",
      // One firmware, one state: telemetry goes to whoever wrote last.
      identity: .endpoint, answers: .lastWriter)
  }

  public func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
  {
    var battery: UInt16 = 7400
    var failingPulse: Int?
    for (flag, value) in settings {
      switch flag {
      case "battery-mv":
        guard let number = UInt16(value) else {
          throw ModelSettingError(
            "--battery-mv must be a whole number of millivolts, 0–65535; got '\(value)'")
        }
        battery = number
      case "i2c-fail-us":
        guard let number = Int(value), LegCtrlFirmware.pulseRange.contains(number) else {
          throw ModelSettingError(
            "--i2c-fail-us must be a servo pulse the firmware can put out, 500–2500 µs; got '\(value)'")
        }
        failingPulse = number
      default:
        throw ModelSettingError("legctrl has no setting --\(flag); it takes --battery-mv and --i2c-fail-us")
      }
    }
    return LegCtrlFirmwareModel(mode: mode, batteryMillivolts: battery, failingPulse: failingPulse)
  }
}
