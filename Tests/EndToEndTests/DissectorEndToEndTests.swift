import Foundation
import Testing

/// `pktbench dissector CODEC`: tshark, with the Lua dissector pktbench
/// writes, shows every LegCtrl and Rallie message of every shipped capture
/// with the same fields, values, enum names, warnings and damage as
/// pktbench's own ndjson decode; a spec codec's dissector does the same; a
/// bad check byte is expert info. (When tshark is installed.)
@Suite struct DissectorEndToEndTests {
  static let captures: [[String]] =
    [
      ["legctrl", "Captures/legctrl-udp.pcap"], ["rallie", "Captures/rallie-udp.pcap"],
      ["legctrl", "Captures/field-session.pcapng"], ["rallie", "Captures/field-session.pcapng"],
      ["legctrl", "Captures/ble/legctrl-session.btsnoop"],
      ["legctrl", "Captures/ble/legctrl-session.pcapng"],
      ["rallie", "Captures/ble/rallie-session.btsnoop"],
      ["legctrl", "Captures/ble/damaged/legctrl-truncated.btsnoop"],
      ["legctrl", "Tests/Fixtures/analyze/legctrl-faults.pcap"],
      ["rallie", "Tests/Fixtures/analyze/rallie-faults.pcap"],
      ["rallie", "Tests/Fixtures/analyze/rallie-app.pcap"],
    ]
    // The firmware's own recordings, when they sit beside the repository.
    + (DeviceTruth.isPresent ? ["deadman", "edge", "i2c", "keepalive", "reconnect"] : []).map {
      // No well-known port: tshark finds them by the heuristic, pktbench is told.
      ["legctrl", "../shared/device-truth/legctrl/\($0).pcap", "--decode-as", "udp:29000=legctrl"]
    }

  @Test(arguments: captures)
  func tsharkAgreesWithTheDecode(arguments: [String]) throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let (codec, capture) = (arguments[0], arguments[1])
    let path = Pktbench.root.appendingPathComponent(capture).path
    try #require(FileManager.default.fileExists(atPath: path), "\(capture) is missing")
    let lua = try DissectorSupport.dissector([codec], name: codec)
    let decoded = try Pktbench.run(["decode", capture, "--format", "ndjson"] + arguments.dropFirst(2))
    let dissected = try DissectorSupport.tshark(tshark, lua: lua, capture: path, codec: codec)
    #expect(dissected.count > 0)
    let problems = DissectorSupport.differences(ndjson: decoded.text, dissected: dissected, codec: codec)
    #expect(problems.isEmpty, "\(capture):\n\(problems.prefix(10).joined(separator: "\n"))")
  }

  /// The built-in codecs' dissectors come from the layout the plugins
  /// expose, and that is the shipped spec: `--spec` gives the same file.
  @Test(arguments: ["legctrl", "rallie"])
  func theBuiltInsDissectorIsTheSpecs(codec: String) throws {
    let builtIn = try Pktbench.run(["dissector", codec])
    let spec = try Pktbench.run(["dissector", codec, "--spec", "Specs/\(codec).ksy"])
    #expect(builtIn.status == 0 && spec.status == 0)
    #expect(builtIn.text == spec.text)
    #expect(builtIn.text.contains("P.name = \"\(codec)\""))
  }

  /// A Rallie frame whose check byte is wrong: expert info names the check,
  /// and the frame is still Rallie's (the heuristic takes it).
  @Test func aBadCheckByteIsFlagged() throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    // §3's vector 5A A5 83 32 32 2D 2D 32 00 (XOR 4E), with 4F.
    let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rallie-bad-\(UUID().uuidString).pcap")
    try Data(Self.pcap([Self.bytes("5A A5 83 32 32 2D 2D 32 00 4F")], port: 40100)).write(to: capture)
    let lua = try DissectorSupport.dissector(["rallie"], name: "rallie")
    let result = try Pktbench.runProgram(
      tshark,
      [
        "-X", "lua_script:\(lua.path)", "-r", capture.path, "-T", "fields", "-e", "_ws.col.Protocol", "-e",
        "_ws.expert.message", "-e", "_ws.expert.severity",
      ])
    let columns = result.text.split(separator: "\n").first?.split(separator: "\t").map(String.init) ?? []
    #expect(columns.count == 3, "\(result.text)")
    #expect(columns.first == "RALLIE")
    #expect(
      columns.dropFirst().first?.hasPrefix("bad-check: check at offset 9 is 0x4F") == true, "\(columns)")
    #expect(columns.dropFirst().first?.contains("0x4E (XOR)") == true)
    // Wireshark's error severity (PI_ERROR).
    #expect(columns.last == "8388608")
  }

  /// JSON codecs: the payload goes to Wireshark's JSON dissector and the
  /// message is named from the schema (Rider on its UDP port).
  @Test func jsonCodecsNameTheirMessages() throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let lua = try DissectorSupport.dissector(["rider"], name: "rider")
    let result = try Pktbench.runProgram(
      tshark,
      [
        "-X", "lua_script:\(lua.path)", "-r",
        Pktbench.root.appendingPathComponent("Captures/rider-20hz.pcap").path,
        "-T", "fields", "-e", "rider.message", "-e", "json.member_with_value",
      ])
    let lines = result.text.split(separator: "\n")
    // rider-20hz.json: 60 drive, then 2 move; the 2 legacy lines are not JSON.
    #expect(lines.filter { $0.hasPrefix("drive\t") }.count == 60)
    #expect(lines.filter { $0.hasPrefix("move\t") }.count == 2)
    #expect(lines.first?.contains("left:") == true)
  }

  /// A JSON spec codec (SpecJSONTests' thermostat) on its UDP port: each
  /// message named by its fixed key or by its keys, an optional key absent.
  @Test func aJsonSpecCodecNamesItsMessages() throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-thermo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let spec = directory.appendingPathComponent("thermo.ksy")
    try Data(Self.thermo.utf8).write(to: spec)
    let sent = [
      (#"{"seq": 7, "temp": 21.5, "heating": true}"#, "reading"),
      (#"{"type":"set","target":19,"mode":"manual"}"#, "setpoint"),
      (#"{"temp": 20, "seq": 8, "heating": false, "note": "door open"}"#, "reading"),
    ]
    let capture = directory.appendingPathComponent("thermo.pcap")
    try Data(Self.pcap(sent.map { Array($0.0.utf8) }, port: 5006)).write(to: capture)
    let lua = try DissectorSupport.dissector(["thermo", "--spec", spec.path], name: "thermo")
    let result = try Pktbench.runProgram(
      tshark,
      [
        "-X", "lua_script:\(lua.path)", "-r", capture.path, "-T", "fields", "-e", "thermo.message", "-e",
        "json.key",
      ])
    let lines = result.text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(lines.map { $0.first ?? "" } == sent.map(\.1), "\(result.text) \(result.stderr)")
    // Wireshark's JSON dissector ran on each.
    #expect(lines.first?.last == "seq,temp,heating")
  }

  static let thermo = """
    meta:
      id: thermo
    -pktbench:
      encoding: json
      udp: [5006]
      messages:
        - name: setpoint
          fields:
            - {name: type, type: string, fixed: set}
            - {name: target, type: number, unit: "°C", range: [5, 30]}
            - {name: mode, type: string, enum: [auto, manual], default: auto}
        - name: reading
          fields:
            - {name: temp, type: number, unit: "°C", range: [-40, 125]}
            - {name: seq, type: integer, range: [0, 65535]}
            - {name: heating, type: bool}
            - {name: note, type: string, optional: true}
    """

  @Test func anUnknownCodecIsAUsageError() throws {
    let result = try Pktbench.run(["dissector", "nosuch"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("unknown codec 'nosuch'"))
  }

  static func bytes(_ hex: String) -> [UInt8] {
    hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
  }

  /// A pcap (Ethernet, IPv4, UDP from :40000 to `port`) of the payloads, one a second.
  static func pcap(_ payloads: [[UInt8]], port: UInt16) -> [UInt8] {
    var out: [UInt8] = []
    func le32(_ value: UInt32) { out += withUnsafeBytes(of: value.littleEndian, Array.init) }
    func be16(_ value: UInt16, _ into: inout [UInt8]) { into += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    le32(0xA1B2_C3D4)
    out += [2, 0, 4, 0]
    le32(0)
    le32(0)
    le32(65535)
    le32(1)
    for (index, payload) in payloads.enumerated() {
      var udp: [UInt8] = []
      be16(40000, &udp)
      be16(port, &udp)
      be16(UInt16(8 + payload.count), &udp)
      be16(0, &udp)
      udp += payload
      var ip: [UInt8] = [0x45, 0]
      be16(UInt16(20 + udp.count), &ip)
      ip += [0, 0, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]
      var sum: UInt32 = 0
      for word in stride(from: 0, to: 20, by: 2) { sum += UInt32(ip[word]) << 8 | UInt32(ip[word + 1]) }
      while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
      ip[10] = UInt8((~sum >> 8) & 0xFF)
      ip[11] = UInt8(~sum & 0xFF)
      let frame = [UInt8](repeating: 0, count: 12) + [0x08, 0x00] + ip + udp
      le32(UInt32(1000 + index))
      le32(0)
      le32(UInt32(frame.count))
      le32(UInt32(frame.count))
      out += frame
    }
    return out
  }

}
