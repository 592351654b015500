import PacketKit

/// `Specs/legctrl.ksy`, the same layout as a Kaitai Struct spec: `pktbench
/// dissector legctrl` reads it. SpecTextTests holds this text equal to the
/// file, and SpecAgainstSwiftTests holds the file against this codec.
extension LegCtrlCodec: SpecDescribed {
  public var specText: String { LegCtrlSpecText.ksy }
}

enum LegCtrlSpecText {
  static let ksy = #"""
    # LegCtrl — servo leg controller. A Kaitai Struct spec that is also a
    # pktbench codec: `pktbench … --spec Specs/legctrl.ksy` replaces the
    # built-in legctrl codec for that run. Kaitai's own tools read the same
    # file (they leave the -pktbench keys alone).
    meta:
      id: legctrl
      title: LegCtrl servo leg controller
      endian: le
    doc: |
      A 4-byte little-endian header (version 01, msg_type, payload_len 0…8,
      reserved 00), then the payload. The firmware executes ARM, DISARM and
      PING whatever follows them, ignores a servo command whose payload is not
      2 bytes, and answers an unknown msg_type with INVALID_CMD.

    -pktbench:
      message: body
      transport: BLE GATT (command …789abd, telemetry …789abe); also UDP
      notes:
        - "4-byte little-endian header: version 01, msg_type, payload_len 0…8, reserved 00"
        - "deadman: no valid command for 200 ms while ARMED trips FAULT / DEADMAN_TIMEOUT"
      ble:
        service: 12345678-1234-1234-1234-123456789abc
        characteristics:
          - uuid: 12345678-1234-1234-1234-123456789abd
            name: command
            properties: [write, write-without-response]
            messages: [arm, disarm, set_servo_ch0, ping]
          - uuid: 12345678-1234-1234-1234-123456789abe
            name: telemetry
            properties: [notify]
            messages: [telemetry]
      # No well-known UDP port: LegCtrl over UDP is found by its probe, or with
      # --decode-as udp:PORT=legctrl.
      trailing: bad-length           # the frame is exactly 4 + payload_len bytes
      examples:
        decode:
          - "decode --spec Specs/legctrl.ksy --codec legctrl --hex '01 10 08 00 02 01 C8 00 E8 1C 00 00'"
        craft:
          - "craft --spec Specs/legctrl.ksy servo --us 1500"

    seq:
      - id: header
        type: header
        valid:
          expr: _.payload_len <= 8
        -pktbench-error: {code: bad-length, at: _.payload_len}   # "invalid attribute length"
      - id: body
        size: header.payload_len
        -pktbench-error: bad-length
        -pktbench-unknown:
          name: unknown
          warning: unknown-msg-type
          text: "msg_type names no LegCtrl message; the firmware answers INVALID_CMD"
          field: payload
        type:
          switch-on: header.msg_type
          cases:
            msg_type::arm: arm
            msg_type::disarm: disarm
            msg_type::set_servo_ch0: set_servo_ch0
            msg_type::ping: ping
            msg_type::telemetry: telemetry

    types:
      header:
        seq:
          - id: version
            type: u1
            valid: 1
            -pktbench-error: bad-version     # the firmware rejects it ("value not allowed")
          - id: msg_type
            type: u1
            enum: msg_type
            -pktbench-display: hex           # an unknown type shows as unknown(0x3f)
          - id: payload_len
            type: u1
            -pktbench-unit: bytes
          - id: reserved
            type: u1
            -pktbench-expect: {value: 0, warning: reserved-nonzero}   # the firmware accepts it

      arm:
        doc: "ARM: enable the servo outputs"
        -pktbench-direction: app-to-device
        -pktbench-probe: 60                  # a short frame that says less than a servo command
        -pktbench-size-mismatch:             # the firmware executes it whatever follows
          action: keep
          field: payload
          code: unexpected-payload
          text: "ARM carries no payload; the firmware executes it all the same"

      disarm:
        doc: "DISARM: disable the outputs, clear a FAULT"
        -pktbench-direction: app-to-device
        -pktbench-probe: 60
        -pktbench-size-mismatch:
          action: keep
          field: payload
          code: unexpected-payload
          text: "DISARM carries no payload; the firmware executes it all the same"

      set_servo_ch0:
        doc: "SET_SERVO_CH0: servo pulse; repeated at 50 Hz as the deadman keep-alive"
        -pktbench-craft-names: [servo]
        -pktbench-direction: app-to-device
        -pktbench-rate: {hz: 50, tolerance: 10%, text: 50 Hz keep-alive, rule: servo-rate}
        -pktbench-size-mismatch:             # payload_len ≠ 2: the firmware ignores it
          action: unknown
          code: ignored-by-device
          text: "SET_SERVO_CH0 needs payload_len 2: the firmware ignores it"
        seq:
          - id: pulse_us
            type: u2
            doc: servo channel 0 pulse width in microseconds (the firmware clamps to 500…2500)
            -pktbench-flag: us
            -pktbench-unit: µs
            -pktbench-range: [500, 2500]

      ping:
        doc: "PING: keep-alive"
        -pktbench-direction: app-to-device
        -pktbench-probe: 60
        -pktbench-size-mismatch:
          action: keep
          field: payload
          code: unexpected-payload
          text: "PING carries no payload; the firmware executes it all the same"

      telemetry:
        doc: "TELEMETRY: state, error, command age, battery; 10 Hz notify"
        -pktbench-direction: device-to-app
        -pktbench-rate: {hz: 10, tolerance: 10%, text: 10 Hz ± 10 %, rule: telemetry-rate}
        -pktbench-size-mismatch: {action: error, code: bad-length}   # payload_len ≠ 8 is damage
        seq:
          - id: state
            type: u1
            enum: state
            doc: "controller state: disarmed, armed or fault (anything else: the app shows FAULT)"
            -pktbench-default: DISARMED
          - id: error_code
            type: u1
            enum: error_code
            doc: "last error: none, deadman-timeout, low-battery, i2c-fault, invalid-cmd, unknown"
            -pktbench-flag: error
            -pktbench-default: NONE
          - id: last_cmd_age_ms
            type: u2
            doc: milliseconds since the last valid command (saturates at 65535)
            -pktbench-flag: age-ms
            -pktbench-unit: ms
            -pktbench-range: [0, 65535]
            -pktbench-default: 0
          - id: battery_mv
            type: u2
            doc: battery voltage in millivolts
            -pktbench-flag: battery-mv
            -pktbench-unit: mV
            -pktbench-range: [0, 65535]
            -pktbench-default: 7400
          - id: reserved
            type: u2
            -pktbench-expect: {value: 0, warning: reserved-nonzero}

    enums:
      msg_type:
        0x01: {id: arm, -orig-id: ARM}
        0x02: {id: disarm, -orig-id: DISARM}
        0x03: {id: set_servo_ch0, -orig-id: SET_SERVO_CH0}
        0x04: {id: ping, -orig-id: PING}
        0x10: {id: telemetry, -orig-id: TELEMETRY}
      state:
        0: {id: disarmed, -orig-id: DISARMED}
        1: {id: armed, -orig-id: ARMED}
        2: {id: fault, -orig-id: FAULT}
      error_code:
        0: {id: none, -orig-id: NONE}
        1: {id: deadman_timeout, -orig-id: DEADMAN_TIMEOUT}
        2: {id: low_battery, -orig-id: LOW_BATTERY}
        3: {id: i2c_fault, -orig-id: I2C_FAULT}
        4: {id: invalid_cmd, -orig-id: INVALID_CMD}
        0xff: {id: unknown, -orig-id: UNKNOWN}
    """#
}
