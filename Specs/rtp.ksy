# RTP packets (RFC 3550) as a Kaitai Struct spec and a pktbench codec. RTP
# has no port of its own: route it by port,
#   pktbench decode capture.pcap --spec Specs/rtp.ksy --decode-as udp:5004=rtp
meta:
  id: rtp
  title: RTP (Real-time Transport Protocol) packet
  xref:
    rfc: [3550, 3551]
  endian: be
  bit-endian: be

-pktbench:
  transport: UDP, on ports the session chose (--decode-as udp:PORT=rtp)

seq:
  - id: version
    type: b2
  - id: padding
    type: b1
  - id: extension
    type: b1
  - id: csrc_count
    type: b4
  - id: marker
    type: b1
  - id: payload_type
    type: b7
    enum: payload_type
  - id: sequence_number
    type: u2
  - id: timestamp
    type: u4
  - id: ssrc
    type: u4
  - id: csrc
    type: u4
    repeat: expr
    repeat-expr: csrc_count
  - id: header_extension
    type: header_extension
    if: extension
  - id: payload
    size: _io.size - _io.pos - len_padding
  - id: padding_bytes
    size: len_padding
instances:
  len_padding_if_exists:
    pos: _io.size - 1
    type: u1
    if: padding
    doc: with the padding bit, the last byte counts the padding bytes
  len_padding:
    value: 'padding ? len_padding_if_exists : 0'

types:
  header_extension:
    seq:
      - id: profile
        type: u2
      - id: length
        type: u2
        doc: in 32-bit words
      - id: data
        size: length * 4

enums:
  payload_type:
    0: pcmu
    3: gsm
    4: g723
    8: pcma
    9: g722
    10: l16_stereo
    11: l16_mono
    13: cn
    14: mpa
    18: g729
    26: jpeg
    31: h261
    32: mpv
    33: mp2t
    34: h263
    96: dynamic_96
    97: dynamic_97
    111: dynamic_111
