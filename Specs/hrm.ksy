# Bluetooth Heart Rate Measurement (GATT characteristic 0x2A37, Heart
# Rate Service 1.0) as a Kaitai Struct spec and a pktbench codec:
#   pktbench decode btsnoop_hci.log --spec Specs/hrm.ksy
# A flag says whether the rate is 8 or 16 bits; two more whether energy
# expended and RR intervals follow.
meta:
  id: hrm
  title: Bluetooth Heart Rate Measurement
  endian: le
  bit-endian: le

-pktbench:
  transport: BLE GATT, Heart Rate Measurement (0x2A37) notifications
  ble:
    service: "180D"
    characteristics:
      - uuid: "2A37"
        properties: [notify]

seq:
  - id: rate_is_16_bits
    type: b1
  - id: sensor_contact
    type: b2
    enum: sensor_contact
  - id: energy_expended_present
    type: b1
  - id: rr_intervals_present
    type: b1
  - id: reserved
    type: b3
    -pktbench-expect: 0
  - id: heart_rate
    -pktbench-unit: bpm
    type:
      switch-on: rate_is_16_bits
      cases:
        true: u2
        false: u1
  - id: energy_expended
    type: u2
    if: energy_expended_present
    -pktbench-unit: kJ
  - id: rr_intervals
    type: u2
    repeat: eos
    if: rr_intervals_present
    -pktbench-unit: 0.0009765625 s
    doc: time between beats, in 1/1024 s

enums:
  sensor_contact:
    0: not_supported
    1: not_supported_1
    2: not_detected
    3: detected
