# CoAP messages (RFC 7252) as a Kaitai Struct spec and a pktbench codec:
#   pktbench decode capture.pcap --spec Specs/coap.ksy
# The message kinds are CoAP's four types; options keep their delta and
# length nibbles and extensions as sent; an option's number is the sum of
# its delta and those before it.
meta:
  id: coap
  title: CoAP (Constrained Application Protocol) message
  xref:
    rfc: 7252
  endian: be
  bit-endian: be

-pktbench:
  message: type
  transport: UDP port 5683
  udp: [5683]

seq:
  - id: version
    type: b2
  - id: type
    type: b2
    enum: message_type
  - id: token_length
    type: b4
  - id: code
    type: u1
    enum: code
  - id: message_id
    type: u2
  - id: token
    size: token_length
  - id: options
    type: option
    repeat: until
    repeat-until: _.is_payload_marker or _io.eof
    if: not _io.eof
  - id: payload
    size-eos: true
    if: not _io.eof

instances:
  code_class:
    value: code.to_i >> 5
  code_detail:
    value: code.to_i & 0x1f

types:
  option:
    seq:
      - id: delta_nibble
        type: b4
      - id: length_nibble
        type: b4
      - id: delta_ext8
        type: u1
        if: delta_nibble == 13
      - id: delta_ext16
        type: u2
        if: delta_nibble == 14
      - id: length_ext8
        type: u1
        if: length_nibble == 13
      - id: length_ext16
        type: u2
        if: length_nibble == 14
      - id: value
        size: length
        if: not is_payload_marker
    instances:
      is_payload_marker:
        value: delta_nibble == 15
        doc: the 0xFF before a payload, read where an option would start
      delta:
        value: 'delta_nibble == 13 ? delta_ext8 + 13 : delta_nibble == 14 ? delta_ext16 + 269 : delta_nibble'
      length:
        value: 'length_nibble == 13 ? length_ext8 + 13 : length_nibble == 14 ? length_ext16 + 269 : length_nibble'

enums:
  message_type:
    0: confirmable
    1: non_confirmable
    2: acknowledgement
    3: reset
  code:
    0: empty
    1: get
    2: post
    3: put
    4: delete
    5: fetch
    6: patch
    7: ipatch
    65: created
    66: deleted
    67: valid
    68: changed
    69: content
    95: continue
    128: bad_request
    129: unauthorized
    130: bad_option
    131: forbidden
    132: not_found
    133: method_not_allowed
    134: not_acceptable
    136: request_entity_incomplete
    140: precondition_failed
    141: request_entity_too_large
    143: unsupported_content_format
    160: internal_server_error
    161: not_implemented
    162: bad_gateway
    163: service_unavailable
    164: gateway_timeout
    165: proxying_not_supported
