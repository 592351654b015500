# DNS messages (RFC 1035) as a Kaitai Struct spec and a pktbench codec:
#   pktbench decode capture.pcap --spec Specs/dns.ksy
# Queries and responses are the message kinds (the QR bit); a name is its
# labels, and a compressed name's pointer shows the name it points to.
meta:
  id: dns
  title: DNS (Domain Name System) message
  xref:
    rfc: 1035
  endian: be
  bit-endian: be
  encoding: ASCII

-pktbench:
  message: flags.qr
  transport: UDP port 53
  udp: [53]
  examples:
    decode:
      - "decode capture.pcap --spec Specs/dns.ksy -Y 'dns.flags.rcode != 0'"

seq:
  - id: transaction_id
    type: u2
    doc: matches a response to its query
  - id: flags
    type: flags
  - id: qdcount
    type: u2
  - id: ancount
    type: u2
  - id: nscount
    type: u2
  - id: arcount
    type: u2
  - id: queries
    type: query
    repeat: expr
    repeat-expr: qdcount
  - id: answers
    type: resource
    repeat: expr
    repeat-expr: ancount
  - id: authorities
    type: resource
    repeat: expr
    repeat-expr: nscount
  - id: additionals
    type: resource
    repeat: expr
    repeat-expr: arcount

types:
  flags:
    seq:
      - id: qr
        type: b1
        enum: qr
      - id: opcode
        type: b4
        enum: opcode
      - id: aa
        type: b1
        doc: authoritative answer
      - id: tc
        type: b1
        doc: truncated
      - id: rd
        type: b1
        doc: recursion desired
      - id: ra
        type: b1
        doc: recursion available
      - id: z
        type: b1
      - id: ad
        type: b1
        doc: authentic data (RFC 4035)
      - id: cd
        type: b1
        doc: checking disabled (RFC 4035)
      - id: rcode
        type: b4
        enum: rcode

  query:
    seq:
      - id: name
        type: domain_name
      - id: type
        type: u2
        enum: rr_type
      - id: class
        type: u2
        enum: rr_class

  resource:
    seq:
      - id: name
        type: domain_name
      - id: type
        type: u2
        enum: rr_type
      - id: class
        type: u2
        enum: rr_class
      - id: ttl
        type: u4
        -pktbench-unit: s
      - id: rdlength
        type: u2
      - id: rdata
        size: rdlength
        type:
          switch-on: type
          cases:
            rr_type::a: ipv4_address
            rr_type::aaaa: ipv6_address
            rr_type::ns: domain_name
            rr_type::cname: domain_name
            rr_type::ptr: domain_name
            rr_type::mx: mail_exchange
            rr_type::txt: text_strings

  domain_name:
    seq:
      - id: labels
        type: label
        repeat: until
        repeat-until: _.length == 0 or _.is_pointer

  label:
    seq:
      - id: length
        type: u1
      - id: pointer
        type: pointer
        if: is_pointer
      - id: name
        type: str
        size: length
        if: not is_pointer and length > 0
    instances:
      is_pointer:
        value: length >= 0xc0

  pointer:
    seq:
      - id: low
        type: u1
    instances:
      target:
        doc: the name the pointer names (RFC 1035 §4.1.4)
        io: _root._io
        pos: ((_parent.length & 0x3f) << 8) | low
        type: domain_name

  ipv4_address:
    seq:
      - id: address
        size: 4
  ipv6_address:
    seq:
      - id: address
        size: 16
  mail_exchange:
    seq:
      - id: preference
        type: u2
      - id: exchange
        type: domain_name
  text_strings:
    seq:
      - id: strings
        type: character_string
        repeat: eos
  character_string:
    seq:
      - id: length
        type: u1
      - id: text
        type: str
        size: length

enums:
  qr:
    0: query
    1: response
  opcode:
    0: query
    1: iquery
    2: status
    4: notify
    5: update
  rcode:
    0: no_error
    1: format_error
    2: server_failure
    3: name_error
    4: not_implemented
    5: refused
  rr_type:
    1: a
    2: ns
    5: cname
    6: soa
    12: ptr
    15: mx
    16: txt
    28: aaaa
    33: srv
    41: opt
    255: any
  rr_class:
    1: internet
    3: chaos
    4: hesiod
    255: any
