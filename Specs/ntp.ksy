# NTP packets (RFC 5905) as a Kaitai Struct spec and a pktbench codec:
#   pktbench decode capture.pcap --spec Specs/ntp.ksy
# The message kinds are the modes (client, server, broadcast …); the
# timestamps' seconds since 1900 show as Unix time beside their fields.
meta:
  id: ntp
  title: NTP (Network Time Protocol) packet
  xref:
    rfc: 5905
  endian: be
  bit-endian: be

-pktbench:
  message: mode
  transport: UDP port 123
  udp: [123]

seq:
  - id: leap
    type: b2
    enum: leap
  - id: version
    type: b3
  - id: mode
    type: b3
    enum: mode
  - id: stratum
    type: u1
  - id: poll
    type: s1
    doc: log2 of the poll interval in seconds
  - id: precision
    type: s1
    doc: log2 of the clock's precision in seconds
  - id: root_delay
    type: u4
    -pktbench-unit: 0.0000152587890625 s
  - id: root_dispersion
    type: u4
    -pktbench-unit: 0.0000152587890625 s
  - id: reference_id
    size: 4
  - id: reference_time
    type: timestamp
  - id: origin_time
    type: timestamp
  - id: receive_time
    type: timestamp
  - id: transmit_time
    type: timestamp
  - id: key_id
    type: u4
    if: _io.size - _io.pos >= 4
    doc: present when the packet carries a MAC (symmetric key authentication)
  - id: digest
    size-eos: true
    if: not _io.eof

types:
  timestamp:
    seq:
      - id: seconds
        type: u4
        -pktbench-unit: s
      - id: fraction
        type: u4
        doc: in 2^-32 s
    instances:
      unix_time:
        value: 'seconds == 0 and fraction == 0 ? 0.0 : seconds - 2208988800 + fraction / 4294967296.0'

enums:
  leap:
    0: no_warning
    1: last_minute_61
    2: last_minute_59
    3: unsynchronized
  mode:
    0: reserved
    1: symmetric_active
    2: symmetric_passive
    3: client
    4: server
    5: broadcast
    6: control
    7: private
