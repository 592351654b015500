import Foundation
import Testing

/// Kaitai Struct specs of public protocols (Specs/dns.ksy, rtp.ksy,
/// ntp.ksy, coap.ksy, hrm.ksy) held against tshark's built-in dissectors on
/// captures written with Python's struct: every field tshark shows, value
/// for value, frame by frame.
@Suite(.serialized) struct PublicProtocolTsharkTests {
  typealias Support = PublicProtocolSupport

  /// RFC 1035's numbers for the names Specs/dns.ksy gives them.
  static let rrTypes: [String: Int64] = [
    "a": 1, "ns": 2, "cname": 5, "soa": 6, "ptr": 12, "mx": 15, "txt": 16, "aaaa": 28, "any": 255,
  ]
  static let opcodes: [String: Int64] = ["query": 0, "iquery": 1, "status": 2, "notify": 4, "update": 5]
  static let rcodes: [String: Int64] = [
    "no_error": 0, "format_error": 1, "server_failure": 2, "name_error": 3,
  ]

  /// A name's labels, pointers followed, as tshark writes it.
  static func dnsName(_ name: Any?) -> String {
    var parts: [String] = []
    for label in (Support.object(name, "labels") as? [[String: Any]]) ?? [] {
      if let text = label["name"] as? String { parts.append(text) }
      if let target = Support.object(label, "pointer.target") { parts.append(dnsName(target)) }
    }
    return parts.joined(separator: ".")
  }

  @Test func dnsAgreesWithTshark() throws {
    let capture = try Support.captures().appendingPathComponent("dns.pcap")
    let fields = [
      "dns.id", "dns.flags.response", "dns.flags.opcode", "dns.flags.authoritative", "dns.flags.truncated",
      "dns.flags.recdesired", "dns.flags.recavail", "dns.flags.rcode", "dns.count.queries",
      "dns.count.answers",
      "dns.qry.name", "dns.qry.type", "dns.qry.class", "dns.resp.name", "dns.resp.type", "dns.resp.ttl",
      "dns.resp.len", "dns.a", "dns.aaaa", "dns.cname", "dns.mx.preference", "dns.mx.mail_exchange",
      "dns.txt",
    ]
    let theirs = try Support.tshark(capture, fields, filter: "dns")
    let ours = try Support.pktbench(capture, codec: "dns", ["--spec", "Specs/dns.ksy"])
    #expect(theirs.count == 6)
    #expect(ours.count == theirs.count)
    for (tshark, record) in zip(theirs, ours) {
      let values = try #require(record["fields"] as? [String: Any])
      let flags = values["flags"] as? [String: Any]
      let isResponse = Support.integers(tshark["dns.flags.response"]) == [1]
      #expect(record["message"] as? String == (isResponse ? "response" : "query"))
      #expect(Support.integers(tshark["dns.id"]) == [Support.integer(values["transaction_id"]) ?? -1])
      #expect(
        Support.integers(tshark["dns.flags.opcode"]) == [
          Self.opcodes[flags?["opcode"] as? String ?? ""] ?? -1
        ])
      for (theirs, ours) in [
        ("dns.flags.truncated", "tc"), ("dns.flags.recdesired", "rd"),
      ] {
        #expect(Support.integers(tshark[theirs]) == [(flags?[ours] as? Bool ?? false) ? 1 : 0], "\(theirs)")
      }
      if isResponse {
        #expect(
          Support.integers(tshark["dns.flags.authoritative"]) == [(flags?["aa"] as? Bool ?? false) ? 1 : 0])
        #expect(Support.integers(tshark["dns.flags.recavail"]) == [(flags?["ra"] as? Bool ?? false) ? 1 : 0])
        #expect(
          Support.integers(tshark["dns.flags.rcode"]) == [Self.rcodes[flags?["rcode"] as? String ?? ""] ?? -1]
        )
      }
      let queries = (values["queries"] as? [[String: Any]]) ?? []
      if !(tshark["dns.count.queries"] ?? []).isEmpty {
        #expect(Support.integers(tshark["dns.count.queries"]) == [Int64(queries.count)])
      }
      #expect(tshark["dns.qry.name"] ?? [] == queries.map { Self.dnsName($0["name"]) })
      #expect(
        Support.integers(tshark["dns.qry.type"])
          == queries.map { Self.rrTypes[$0["type"] as? String ?? ""] ?? -1 })
      #expect(
        Support.integers(tshark["dns.qry.class"])
          == queries.map { $0["class"] as? String == "internet" ? 1 : 255 })
      let records =
        ((values["answers"] as? [[String: Any]]) ?? []) + ((values["additionals"] as? [[String: Any]]) ?? [])
      #expect(tshark["dns.resp.name"] ?? [] == records.map { Self.dnsName($0["name"]) })
      #expect(
        Support.integers(tshark["dns.resp.type"])
          == records.map { Self.rrTypes[$0["type"] as? String ?? ""] ?? -1 })
      #expect(Support.integers(tshark["dns.resp.ttl"]) == records.compactMap { Support.integer($0["ttl"]) })
      #expect(
        Support.integers(tshark["dns.resp.len"]) == records.compactMap { Support.integer($0["rdlength"]) })
      let addresses = records.filter { $0["type"] as? String == "a" }.compactMap {
        Support.hex(Support.object($0, "rdata.address"))
      }
      #expect(
        tshark["dns.a"] ?? []
          == addresses.map { hex in
            stride(from: 0, to: hex.count, by: 2).map {
              String(Int(hex.dropFirst($0).prefix(2), radix: 16) ?? 0)
            }
            .joined(separator: ".")
          })
      let v6 = records.filter { $0["type"] as? String == "aaaa" }.compactMap {
        Support.hex(Support.object($0, "rdata.address"))
      }
      #expect((tshark["dns.aaaa"] ?? []).map { Self.expandIPv6($0) } == v6)
      #expect(
        tshark["dns.cname"] ?? []
          == records.filter { $0["type"] as? String == "cname" }.map { Self.dnsName($0["rdata"]) })
      let exchanges = records.filter { $0["type"] as? String == "mx" }
      #expect(
        Support.integers(tshark["dns.mx.preference"])
          == exchanges.compactMap { Support.integer(Support.object($0, "rdata.preference")) })
      #expect(
        tshark["dns.mx.mail_exchange"] ?? []
          == exchanges.map { Self.dnsName(Support.object($0, "rdata.exchange")) })
      let texts = records.filter { $0["type"] as? String == "txt" }.flatMap {
        (Support.object($0, "rdata.strings") as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
      }
      #expect(tshark["dns.txt"] ?? [] == texts)
    }
  }

  /// `2001:db8::1` as 32 hex digits.
  static func expandIPv6(_ text: String) -> String {
    let halves = text.components(separatedBy: "::")
    let head = halves[0].isEmpty ? [] : halves[0].split(separator: ":").map(String.init)
    let tail = halves.count > 1 && !halves[1].isEmpty ? halves[1].split(separator: ":").map(String.init) : []
    let groups = head + Array(repeating: "0", count: 8 - head.count - tail.count) + tail
    return groups.map { String(repeating: "0", count: 4 - $0.count) + $0 }.joined()
  }

  @Test func rtpAgreesWithTshark() throws {
    let capture = try Support.captures().appendingPathComponent("rtp.pcap")
    let fields = [
      "rtp.version", "rtp.padding", "rtp.ext", "rtp.cc", "rtp.marker", "rtp.p_type", "rtp.seq",
      "rtp.timestamp",
      "rtp.ssrc", "rtp.csrc.item", "rtp.ext.profile", "rtp.ext.len", "rtp.payload", "rtp.padding.count",
    ]
    let theirs = try Support.tshark(capture, fields, filter: "rtp", options: ["-d", "udp.port==5004,rtp"])
    let ours = try Support.pktbench(
      capture, codec: "rtp", ["--spec", "Specs/rtp.ksy", "--decode-as", "udp:5004=rtp"])
    #expect(theirs.count == 7)
    #expect(ours.count == theirs.count)
    let payloadTypes: [String: Int64] = ["pcmu": 0, "pcma": 8, "dynamic_96": 96]
    for (tshark, record) in zip(theirs, ours) {
      let values = try #require(record["fields"] as? [String: Any])
      func flag(_ key: String) -> Int64 { (values[key] as? Bool ?? false) ? 1 : 0 }
      #expect(Support.integers(tshark["rtp.version"]) == [Support.integer(values["version"]) ?? -1])
      #expect(Support.integers(tshark["rtp.padding"]) == [flag("padding")])
      #expect(Support.integers(tshark["rtp.ext"]) == [flag("extension")])
      #expect(Support.integers(tshark["rtp.cc"]) == [Support.integer(values["csrc_count"]) ?? -1])
      #expect(Support.integers(tshark["rtp.marker"]) == [flag("marker")])
      #expect(
        Support.integers(tshark["rtp.p_type"]) == [
          payloadTypes[values["payload_type"] as? String ?? ""] ?? -1
        ])
      #expect(Support.integers(tshark["rtp.seq"]) == [Support.integer(values["sequence_number"]) ?? -1])
      #expect(Support.integers(tshark["rtp.timestamp"]) == [Support.integer(values["timestamp"]) ?? -1])
      #expect(Support.integers(tshark["rtp.ssrc"]) == [Support.integer(values["ssrc"]) ?? -1])
      #expect(
        Support.integers(tshark["rtp.csrc.item"])
          == ((values["csrc"] as? [Any]) ?? []).compactMap(Support.integer))
      #expect(
        Support.integers(tshark["rtp.ext.profile"])
          == [Support.object(values, "header_extension.profile")].compactMap(Support.integer))
      #expect(
        Support.integers(tshark["rtp.ext.len"])
          == [Support.object(values, "header_extension.length")].compactMap(Support.integer))
      #expect(tshark["rtp.payload"]?.first.flatMap { Support.hex($0) } == Support.hex(values["payload"]))
      if flag("padding") == 1 {
        #expect(
          Support.integers(tshark["rtp.padding.count"]) == [Support.integer(values["len_padding"]) ?? -1])
      }
    }
  }

  @Test func ntpAgreesWithTshark() throws {
    let capture = try Support.captures().appendingPathComponent("ntp.pcap")
    let fields = [
      "ntp.flags.li", "ntp.flags.vn", "ntp.flags.mode", "ntp.stratum", "ntp.ppoll", "ntp.precision",
      "ntp.rootdelay", "ntp.rootdispersion", "ntp.refid", "ntp.reftime", "ntp.org", "ntp.rec", "ntp.xmt",
      "ntp.keyid", "ntp.mac",
    ]
    let theirs = try Support.tshark(capture, fields, filter: "ntp")
    let ours = try Support.pktbench(capture, codec: "ntp", ["--spec", "Specs/ntp.ksy"])
    #expect(theirs.count == 4)
    #expect(ours.count == theirs.count)
    let leaps: [String: Int64] = [
      "no_warning": 0, "last_minute_61": 1, "last_minute_59": 2, "unsynchronized": 3,
    ]
    let modes: [String: Int64] = ["client": 3, "server": 4]
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "MMM d, yyyy HH:mm:ss"
    /// tshark's "Nov 14, 2023 22:13:20.250000000 UTC" as Unix seconds; NULL as 0.
    func unix(_ text: String?) -> Double? {
      guard let text else { return nil }
      if text == "NULL" { return 0 }
      let parts = text.replacingOccurrences(of: "  ", with: " ").replacingOccurrences(of: " UTC", with: "")
        .split(separator: ".")
      guard let date = formatter.date(from: String(parts[0])) else { return nil }
      return date.timeIntervalSince1970 + (Double("0." + (parts.count > 1 ? parts[1] : "0")) ?? 0)
    }
    for (tshark, record) in zip(theirs, ours) {
      let values = try #require(record["fields"] as? [String: Any])
      #expect(Support.integers(tshark["ntp.flags.li"]) == [leaps[values["leap"] as? String ?? ""] ?? -1])
      #expect(Support.integers(tshark["ntp.flags.vn"]) == [Support.integer(values["version"]) ?? -1])
      #expect(Support.integers(tshark["ntp.flags.mode"]) == [modes[values["mode"] as? String ?? ""] ?? -1])
      #expect(record["message"] as? String == values["mode"] as? String)
      #expect(Support.integers(tshark["ntp.stratum"]) == [Support.integer(values["stratum"]) ?? -1])
      #expect(Support.integers(tshark["ntp.ppoll"]) == [Support.integer(values["poll"]) ?? -1])
      // tshark 4.0 shows the signed log2 precision as its byte, unsigned.
      #expect(
        Support.integers(tshark["ntp.precision"]) == [
          ((Support.integer(values["precision"]) ?? -1) + 256) % 256
        ])
      // pktbench shows the 16.16 fixed point in seconds (its unit's scale).
      for (theirs, ours) in [("ntp.rootdelay", "root_delay"), ("ntp.rootdispersion", "root_dispersion")] {
        #expect(
          Support.integers(tshark[theirs]).map { Double($0) / 65536 } == [values[ours] as? Double ?? -1],
          "\(theirs)")
      }
      #expect(tshark["ntp.refid"]?.first.flatMap { Support.hex($0) } == Support.hex(values["reference_id"]))
      for (theirs, ours) in [
        ("ntp.reftime", "reference_time"), ("ntp.org", "origin_time"), ("ntp.rec", "receive_time"),
        ("ntp.xmt", "transmit_time"),
      ] {
        let expected = try #require(unix(tshark[theirs]?.first), "\(theirs)")
        let found = try #require(Support.object(values, "\(ours).unix_time") as? Double, "\(ours)")
        #expect(abs(expected - found) < 1e-6, "\(theirs): \(expected) against \(found)")
      }
      #expect(
        tshark["ntp.keyid"]?.first.flatMap { Int64($0, radix: 16) } == Support.integer(values["key_id"]))
      #expect(tshark["ntp.mac"]?.first.flatMap { Support.hex($0) } == Support.hex(values["digest"]))
    }
  }

  @Test func heartRateAgreesWithTshark() throws {
    let capture = try Support.captures().appendingPathComponent("hrm.pcap")
    let prefix = "btatt.heart_rate_measurement."
    let fields = [
      "flags.value_16", "flags.sensor_contact_status.support", "flags.sensor_contact_status.contact",
      "flags.energy_expended", "flags.rr_interval", "value.8", "value.16", "energy_expended", "rr_interval",
    ].map { prefix + $0 }
    let theirs = try Support.tshark(capture, fields, filter: "btatt.heart_rate_measurement.flags")
    let ours = try Support.pktbench(capture, codec: "hrm", ["--spec", "Specs/hrm.ksy"])
    #expect(theirs.count == 6)
    #expect(ours.count == theirs.count)
    let contact: [String: (Int64, Int64)] = [
      "not_supported": (0, 0), "not_supported_1": (0, 1), "not_detected": (1, 0), "detected": (1, 1),
    ]
    for (tshark, record) in zip(theirs, ours) {
      let values = try #require(record["fields"] as? [String: Any])
      func flag(_ key: String) -> Int64 { (values[key] as? Bool ?? false) ? 1 : 0 }
      #expect(Support.integers(tshark[prefix + "flags.value_16"]) == [flag("rate_is_16_bits")])
      let (support, detected) = contact[values["sensor_contact"] as? String ?? ""] ?? (-1, -1)
      #expect(Support.integers(tshark[prefix + "flags.sensor_contact_status.support"]) == [support])
      #expect(Support.integers(tshark[prefix + "flags.sensor_contact_status.contact"]) == [detected])
      #expect(Support.integers(tshark[prefix + "flags.energy_expended"]) == [flag("energy_expended_present")])
      #expect(Support.integers(tshark[prefix + "flags.rr_interval"]) == [flag("rr_intervals_present")])
      let rate = Support.integer(values["heart_rate"])
      #expect(
        Support.integers(tshark[prefix + (flag("rate_is_16_bits") == 1 ? "value.16" : "value.8")]) == [
          rate ?? -1
        ])
      #expect(
        Support.integers(tshark[prefix + "energy_expended"])
          == [values["energy_expended"]].compactMap(Support.integer))
      // pktbench shows RR intervals in seconds (its unit's scale, 1/1024 s).
      let intervals = ((values["rr_intervals"] as? [Double]) ?? []).map { Int64(($0 * 1024).rounded()) }
      #expect(Support.integers(tshark[prefix + "rr_interval"]) == intervals)
    }
  }

  @Test func coapAgreesWithTshark() throws {
    let capture = try Support.captures().appendingPathComponent("coap.pcap")
    let fields = [
      "coap.version", "coap.type", "coap.token_len", "coap.code", "coap.mid", "coap.token", "coap.opt.delta",
      "coap.opt.delta_ext", "coap.opt.length", "coap.opt.length_ext", "coap.opt.end_marker",
      "coap.payload_length",
    ]
    let theirs = try Support.tshark(capture, fields, filter: "coap")
    let ours = try Support.pktbench(capture, codec: "coap", ["--spec", "Specs/coap.ksy"])
    #expect(theirs.count == 4)
    #expect(ours.count == theirs.count)
    let types: [String: Int64] = ["confirmable": 0, "non_confirmable": 1, "acknowledgement": 2, "reset": 3]
    let codes: [String: Int64] = ["empty": 0, "get": 1, "post": 2, "content": 69]
    for (tshark, record) in zip(theirs, ours) {
      let values = try #require(record["fields"] as? [String: Any])
      #expect(Support.integers(tshark["coap.version"]) == [Support.integer(values["version"]) ?? -1])
      #expect(Support.integers(tshark["coap.type"]) == [types[values["type"] as? String ?? ""] ?? -1])
      #expect(record["message"] as? String == values["type"] as? String)
      #expect(Support.integers(tshark["coap.token_len"]) == [Support.integer(values["token_length"]) ?? -1])
      #expect(Support.integers(tshark["coap.code"]) == [codes[values["code"] as? String ?? ""] ?? -1])
      #expect(Support.integers(tshark["coap.mid"]) == [Support.integer(values["message_id"]) ?? -1])
      #expect((tshark["coap.token"]?.first).flatMap { Support.hex($0) } ?? "" == Support.hex(values["token"]))
      let all = (values["options"] as? [[String: Any]]) ?? []
      let options = all.filter { $0["is_payload_marker"] as? Bool == false }
      func column(_ key: String) -> [Int64] { options.compactMap { Support.integer($0[key]) } }
      #expect(Support.integers(tshark["coap.opt.delta"]) == column("delta_nibble"))
      #expect(Support.integers(tshark["coap.opt.length"]) == column("length_nibble"))
      // tshark shows an extension as sent, without the 13 or 269 added.
      #expect(Support.integers(tshark["coap.opt.delta_ext"]) == column("delta_ext8") + column("delta_ext16"))
      #expect(
        Support.integers(tshark["coap.opt.length_ext"]) == column("length_ext8") + column("length_ext16"))
      #expect(
        Support.integers(tshark["coap.opt.end_marker"]) == (all.count > options.count ? [255] : []))
      let payload = (Support.hex(values["payload"]) ?? "").count / 2
      #expect(Support.integers(tshark["coap.payload_length"]) == (payload > 0 ? [Int64(payload)] : []))
    }
  }

  /// Routing from the command line needs no extension key: the specs
  /// without their -pktbench section, routed by --decode-as and --ble-map.
  @Test func routingWithoutExtensionKeys() throws {
    let directory = try Support.captures()
    func bare(_ name: String) throws -> String {
      let text = try String(
        contentsOf: Pktbench.root.appendingPathComponent("Specs/\(name).ksy"), encoding: .utf8)
      var kept: [Substring] = []
      var skipping = false
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("-pktbench:") {
          skipping = true
          continue
        }
        if skipping, line.hasPrefix(" ") || line.isEmpty { continue }
        skipping = false
        kept.append(line)
      }
      let file = directory.appendingPathComponent("bare-\(name).ksy")
      try kept.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
      return file.path
    }
    let ntp = try Support.pktbench(
      directory.appendingPathComponent("ntp.pcap"), codec: "ntp",
      ["--spec", try bare("ntp"), "--decode-as", "udp:123=ntp"])
    #expect(ntp.count == 4)
    #expect(
      ntp.allSatisfy {
        $0["message"] as? String == "ntp" && ($0["routing"] as? String ?? "").contains("decode-as")
      })
    let hrm = try Support.pktbench(
      directory.appendingPathComponent("hrm.pcap"), codec: "hrm",
      ["--spec", try bare("hrm"), "--ble-map", "0x0012=hrm"])
    #expect(hrm.count == 6)
    #expect(
      hrm.compactMap { Support.integer(Support.object($0["fields"], "heart_rate")) } == [
        72, 75, 305, 80, 81, 190,
      ])
  }
}
