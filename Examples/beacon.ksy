# Beacon v1, the soil sensor of Examples/ExternalCodec/, as a Kaitai Struct
# spec: the same protocol without Swift. Load it with
#   pktbench decode --spec Examples/beacon.ksy Examples/ExternalCodec/Captures/beacon.pcap
meta:
  id: beacon
  title: Beacon v1 soil sensor
  endian: le

-pktbench:
  message: body                # a reading is 10 bytes, an ack 3
  transport: UDP port 7070, one datagram per message
  udp: [7070]

seq:
  - id: body
    type:
      switch-on: _io.size
      cases:
        10: reading
        3: ack

types:
  reading:
    doc: a sensor reading, broadcast every 10 s
    -pktbench-direction: device-to-app
    seq:
      - {id: magic, type: u1, valid: 0xb1, -pktbench-error: bad-magic}
      - {id: seq, type: u1, doc: sequence number, -pktbench-default: 0}
      - {id: moisture, type: u1, doc: volumetric soil moisture in percent, -pktbench-unit: "%", -pktbench-range: [0, 100]}
      - id: temperature_tenths
        type: s2
        doc: soil temperature in tenths of a degree Celsius
        -pktbench-flag: temp-tenths
        -pktbench-range: [-400, 850]
        -pktbench-default: 200
      - {id: battery_mv, type: u2, doc: battery voltage in millivolts, -pktbench-flag: battery-mv, -pktbench-unit: mV, -pktbench-range: [2000, 4200], -pktbench-default: 3700}
      - {id: status, type: u1, enum: status, doc: "ok, low-battery or sensor-fault", -pktbench-default: ok}
      - {id: reserved, type: u1, -pktbench-expect: {value: 0, warning: reserved-nonzero}}
      - {id: check, type: u1, -pktbench-check: xor}

  ack:
    doc: the gateway's acknowledgement of a reading
    -pktbench-direction: app-to-device
    seq:
      - {id: magic, type: u1, valid: 0xb2, -pktbench-error: bad-magic}
      - {id: seq, type: u1, doc: sequence number, -pktbench-default: 0}
      - {id: check, type: u1, -pktbench-check: xor}

enums:
  status:
    0: ok
    1: low_battery
    2: sensor_fault
