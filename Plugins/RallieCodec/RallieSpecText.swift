import PacketKit

/// `Specs/rallie.yaml`, the same layout as a spec file: `pktbench dissector
/// rallie` reads it. SpecTextTests holds this text equal to the file, and
/// SpecAgainstSwiftTests holds the file against this codec.
extension RallieCodec: SpecDescribed {
  public var specText: String { RallieSpecText.yaml }
}

enum RallieSpecText {
  static let yaml = #"""
    # Rallie tennis ball machine, protocol v0.3 (docs/protocols.md §3). Load with
    # `pktbench … --spec Specs/rallie.yaml`; it replaces the built-in rallie
    # codec for that run.
    pktbench-spec: 1
    name: rallie
    title: Rallie tennis ball machine, protocol v0.3
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

    enums:
      control: {stop: 0, start: 1}
      code: {rejected: 0, accepted: 1, completed: 2}

    header:
      - name: magic
        type: bytes
        size: 2
        offset: 0
        fixed: "5A A5"
        error: bad-magic

    # A command is exactly 10 bytes, a response 5.
    discriminator: frame-length

    messages:
      - name: command
        when: 10
        craft-names: [rallie]
        summary: "command: wheel speeds, aim, feed and start/stop; sent every 2…9 s"
        direction: app-to-device
        rate: {every: [2, 9], rule: command-interval}
        fields:
          - {name: source, type: u8, offset: 2, expect: 0x83, warning: unexpected-source, display: hex}
          - {name: upper_wheel, type: u8, offset: 3, flag: upper, unit: "%", range: [0, 100], help: upper wheel speed in percent}
          - {name: lower_wheel, type: u8, offset: 4, flag: lower, unit: "%", range: [0, 100], help: lower wheel speed in percent}
          - {name: pitch, type: u8, offset: 5, unit: "°", range: [0, 90], help: launch pitch in degrees}
          - {name: yaw, type: u8, offset: 6, unit: "°", range: [0, 90], help: launch yaw in degrees}
          - {name: feed, type: u8, offset: 7, unit: "%", range: [0, 100], help: ball feed rate in percent}
          - name: control
            type: u8
            offset: 8
            enum: control
            default: stop
            cases-are-flags: true
            help: start or stop the machine (--start, --stop)
          - &check
            name: check
            type: u8
            display: hex
            check:
              variants: {xor: xor, modbus16lo: crc16-modbus-low}
              report-as: check_variant
              craft-parameter: checksum
              error: bad-check

      - name: response
        when: 5
        craft-names: [rallie-response]
        summary: "response: rejected, accepted (started) or completed"
        direction: device-to-app
        fields:
          - {name: source, type: u8, offset: 2, expect: 0x82, warning: unexpected-source, display: hex}
          - name: code
            type: u8
            offset: 3
            enum: code
            default: accepted
            cases-are-flags: true
            help: the machine's answer (--rejected, --accepted, --completed)
          - *check

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
        - "decode --spec Specs/rallie.yaml --hex '5AA58332322D2D32004E'"
      craft:
        - "craft --spec Specs/rallie.yaml rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start"
      emulate:
        - "emulate rallie --spec Specs/rallie.yaml --listen udp:127.0.0.1:29100 --checksum modbus16lo"
    """#
}
