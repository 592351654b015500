import PacketKit

/// `Specs/rallie.ksy`, the same layout as a Kaitai Struct spec: `pktbench
/// dissector rallie` reads it. SpecTextTests holds this text equal to the
/// file, and SpecAgainstSwiftTests holds the file against this codec.
extension RallieCodec: SpecDescribed {
  public var specText: String { RallieSpecText.ksy }
}

enum RallieSpecText {
  static let ksy = #"""
    # Rallie tennis ball machine, protocol v0.3. A Kaitai Struct spec that is
    # also a pktbench codec: `pktbench … --spec Specs/rallie.ksy` replaces the
    # built-in rallie codec for that run.
    meta:
      id: rallie
      title: Rallie tennis ball machine, protocol v0.3
    doc: |
      A command is 10 bytes (5A A5 83 upper lower pitch yaw feed control
      check), a response 5 (5A A5 82 code check): the frame's size says which.
      The check is the XOR of the bytes before it (v0.3) or the low byte of
      their CRC-16/MODBUS (later firmware); either is accepted, and which one
      matched is reported as check_variant.

    -pktbench:
      message: body
      transport: BLE GATT (write …FF02, notify …FF03 on later firmware; UUIDs vary by build)
      notes:
        - "command 10 bytes: 5A A5 83 upper lower pitch yaw feed control check"
        - "response 5 bytes: 5A A5 82 code check"
        - "check: XOR of the preceding bytes (v0.3) or the low byte of CRC-16/MODBUS (later firmware); the decoder accepts either and reports which"
      ble:
        service: 5833FF01-9B8B-5191-6142-22A4536EF123
        characteristics:
          # Later firmware; older builds used other UUIDs: map them with --ble-map.
          - uuid: 5833FF02-9B8B-5191-6142-22A4536EF123
            properties: [write]
            messages: [command]
          - uuid: 5833FF03-9B8B-5191-6142-22A4536EF123
            properties: [notify]
            messages: [response]
      # emulate: the machine answers a command it can read in its own check
      # variant (--checksum): rejected when a value is out of range, accepted
      # when it starts, completed when it stops.
      device:
        name: machine
        listens: [udp]
        check-setting: checksum
        replies:
          - {to: command, warnings: true, send: response, with: {code: rejected}}
          - {to: command, when: {control: start}, send: response, with: {code: accepted}}
          - {to: command, when: {control: stop}, send: response, with: {code: completed}}
      examples:
        decode:
          - "decode --spec Specs/rallie.ksy --hex '5AA58332322D2D32004E'"
        craft:
          - "craft --spec Specs/rallie.ksy rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start"
        emulate:
          - "emulate rallie --spec Specs/rallie.ksy --listen udp:127.0.0.1:29100 --checksum modbus16lo"

    seq:
      - id: magic
        contents: [0x5a, 0xa5]
        -pktbench-error: bad-magic
      - id: body
        -pktbench-error: bad-length          # a frame of another size is no Rallie frame
        type:
          switch-on: _io.size
          cases:
            10: command
            5: response

    types:
      command:
        doc: "command: wheel speeds, aim, feed and start/stop; sent every 2…9 s"
        -pktbench-craft-names: [rallie]
        -pktbench-direction: app-to-device
        -pktbench-rate: {every: [2, 9], rule: command-interval}
        seq:
          - id: source
            type: u1
            -pktbench-expect: {value: 0x83, warning: unexpected-source}
            -pktbench-display: hex
          - id: upper_wheel
            type: u1
            doc: upper wheel speed in percent
            -pktbench-flag: upper
            -pktbench-unit: "%"
            -pktbench-range: [0, 100]
          - id: lower_wheel
            type: u1
            doc: lower wheel speed in percent
            -pktbench-flag: lower
            -pktbench-unit: "%"
            -pktbench-range: [0, 100]
          - id: pitch
            type: u1
            doc: launch pitch in degrees
            -pktbench-unit: "°"
            -pktbench-range: [0, 90]
          - id: yaw
            type: u1
            doc: launch yaw in degrees
            -pktbench-unit: "°"
            -pktbench-range: [0, 90]
          - id: feed
            type: u1
            doc: ball feed rate in percent
            -pktbench-unit: "%"
            -pktbench-range: [0, 100]
          - id: control
            type: u1
            enum: control
            doc: start or stop the machine (--start, --stop)
            -pktbench-default: stop
            -pktbench-cases-are-flags: true
          - id: check
            type: u1
            -pktbench-display: hex
            -pktbench-check: &check
              variants: {xor: xor, modbus16lo: crc16-modbus-low}
              report-as: check_variant
              craft-parameter: checksum
              error: bad-check

      response:
        doc: "response: rejected, accepted (started) or completed"
        -pktbench-craft-names: [rallie-response]
        -pktbench-direction: device-to-app
        seq:
          - id: source
            type: u1
            -pktbench-expect: {value: 0x82, warning: unexpected-source}
            -pktbench-display: hex
          - id: code
            type: u1
            enum: code
            doc: the machine's answer (--rejected, --accepted, --completed)
            -pktbench-default: accepted
            -pktbench-cases-are-flags: true
          - id: check
            type: u1
            -pktbench-display: hex
            -pktbench-check: *check

    enums:
      control:
        0: stop
        1: start
      code:
        0: rejected
        1: accepted
        2: completed
    """#
}
