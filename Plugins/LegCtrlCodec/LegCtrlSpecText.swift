import PacketKit

/// `Specs/legctrl.yaml`, the same layout as a spec file: `pktbench dissector
/// legctrl` reads it. SpecTextTests holds this text equal to the file, and
/// SpecAgainstSwiftTests holds the file against this codec.
extension LegCtrlCodec: SpecDescribed {
  public var specText: String { LegCtrlSpecText.yaml }
}

enum LegCtrlSpecText {
  static let yaml = #"""
    # LegCtrl — servo leg controller (docs/protocols.md §2, and §5 for what the
    # firmware does). Load with `pktbench … --spec Specs/legctrl.yaml`; it
    # replaces the built-in legctrl codec for that run.
    pktbench-spec: 1
    name: legctrl
    title: LegCtrl servo leg controller
    transport: BLE GATT (command …789abd, telemetry …789abe); also UDP
    byte-order: little
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

    enums:
      msg_type: {ARM: 0x01, DISARM: 0x02, SET_SERVO_CH0: 0x03, PING: 0x04, TELEMETRY: 0x10}
      state: {DISARMED: 0, ARMED: 1, FAULT: 2}
      error_code: {NONE: 0, DEADMAN_TIMEOUT: 1, LOW_BATTERY: 2, I2C_FAULT: 3, INVALID_CMD: 4, UNKNOWN: 0xFF}

    header:
      - name: header
        type: group
        fields:
          - name: version
            type: u8
            offset: 0
            fixed: 1
            error: bad-version          # the firmware rejects it ("value not allowed")
          - name: msg_type
            type: u8
            offset: 1
            enum: msg_type
            display: hex                # an unknown type shows as unknown(0x3f)
          - name: payload_len
            type: u8
            offset: 2
            unit: bytes
            length-of: body             # the frame is exactly 4 + payload_len bytes
            max: 8
            error: bad-length           # the firmware: "invalid attribute length"
          - name: reserved
            type: u8
            offset: 3
            expect: 0
            warning: reserved-nonzero   # the firmware accepts it

    discriminator: msg_type

    unknown-message:
      name: unknown
      warning: unknown-msg-type
      text: "msg_type names no LegCtrl message; the firmware answers INVALID_CMD"
      field: payload

    messages:
      - name: arm
        probe: 60                       # a short frame that says less than a servo command
        when: ARM
        summary: "ARM: enable the servo outputs"
        direction: app-to-device
        size-mismatch:                  # the firmware executes it whatever follows (§5)
          action: keep
          field: payload
          code: unexpected-payload
          text: "ARM carries no payload; the firmware executes it all the same"

      - name: disarm
        probe: 60                       # a short frame that says less than a servo command
        when: DISARM
        summary: "DISARM: disable the outputs, clear a FAULT"
        direction: app-to-device
        size-mismatch:
          action: keep
          field: payload
          code: unexpected-payload
          text: "DISARM carries no payload; the firmware executes it all the same"

      - name: set_servo_ch0
        when: SET_SERVO_CH0
        craft-names: [servo]
        summary: "SET_SERVO_CH0: servo pulse; repeated at 50 Hz as the deadman keep-alive"
        direction: app-to-device
        rate: {hz: 50, tolerance: 10%, text: 50 Hz keep-alive, rule: servo-rate}
        size-mismatch:                  # payload_len ≠ 2: the firmware ignores it
          action: unknown
          code: ignored-by-device
          text: "SET_SERVO_CH0 needs payload_len 2: the firmware ignores it"
        fields:
          - name: pulse_us
            type: u16
            offset: 4
            flag: us
            unit: µs
            range: [500, 2500]
            help: servo channel 0 pulse width in microseconds (the firmware clamps to 500…2500)

      - name: ping
        probe: 60                       # a short frame that says less than a servo command
        when: PING
        summary: "PING: keep-alive"
        direction: app-to-device
        size-mismatch:
          action: keep
          field: payload
          code: unexpected-payload
          text: "PING carries no payload; the firmware executes it all the same"

      - name: telemetry
        when: TELEMETRY
        summary: "TELEMETRY: state, error, command age, battery; 10 Hz notify"
        direction: device-to-app
        rate: {hz: 10, tolerance: 10%, text: 10 Hz ± 10 %, rule: telemetry-rate}
        # payload_len ≠ 8 is damage (bad-length at payload_len), the default.
        fields:
          - name: state
            type: u8
            offset: 4
            enum: state
            default: DISARMED
            help: "controller state: disarmed, armed or fault (anything else: the app shows FAULT)"
          - name: error_code
            type: u8
            offset: 5
            flag: error
            enum: error_code
            default: NONE
            help: "last error: none, deadman-timeout, low-battery, i2c-fault, invalid-cmd, unknown"
          - name: last_cmd_age_ms
            type: u16
            offset: 6
            flag: age-ms
            unit: ms
            range: [0, 65535]
            default: 0
            help: milliseconds since the last valid command (saturates at 65535)
          - name: battery_mv
            type: u16
            offset: 8
            flag: battery-mv
            unit: mV
            range: [0, 65535]
            default: 7400
            help: battery voltage in millivolts
          - name: reserved
            type: u16
            offset: 10
            expect: 0
            warning: reserved-nonzero

    examples:
      decode:
        - "decode --spec Specs/legctrl.yaml --codec legctrl --hex '01 10 08 00 02 01 C8 00 E8 1C 00 00'"
      craft:
        - "craft --spec Specs/legctrl.yaml servo --us 1500"
    """#
}
