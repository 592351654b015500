import Foundation
import Testing

/// The Lua dissectors pktbench writes from Specs/dns.ksy, rtp.ksy,
/// ntp.ksy, coap.ksy and hrm.ksy, loaded into tshark beside Wireshark's own
/// protocols, show every field, value, warning and damage pktbench's
/// decode shows for the same captures. A name Wireshark has already gets
/// a prefix (said on stderr); RTP is found by Decode As; the Heart Rate
/// Measurement, which Wireshark decodes itself, reaches the dissector
/// through the "bluetooth.uuid" table.
@Suite(.serialized) struct PublicProtocolLuaTests {
  static let cases: [(codec: String, capture: String, decode: [String], tshark: [String], name: String)] = [
    ("dns", "dns.pcap", [], [], "pktbench_dns"),
    (
      "rtp", "rtp.pcap", ["--decode-as", "udp:5004=rtp"], ["-d", "udp.port==5004,pktbench_rtp"],
      "pktbench_rtp"
    ),
    ("ntp", "ntp.pcap", [], [], "pktbench_ntp"),
    ("coap", "coap.pcap", [], [], "pktbench_coap"),
    ("hrm", "hrm.pcap", [], [], "hrm"),
  ]

  @Test(arguments: cases.indices)
  func dissectorAgreesWithTheDecode(index: Int) throws {
    let (codec, file, decode, options, name) = Self.cases[index]
    guard let tshark = Pktbench.which("tshark") else { return }
    let capture = try PublicProtocolSupport.captures().appendingPathComponent(file)
    let spec = "Specs/\(codec).ksy"
    let generated = try Pktbench.run(["dissector", codec, "--spec", spec])
    #expect(generated.status == 0, "\(generated.stderr)")
    if name != codec {
      #expect(
        generated.stderr.contains("Wireshark has a protocol '\(codec)'; this one is '\(name)'"),
        "\(generated.stderr)")
    } else {
      #expect(generated.stderr.isEmpty, "\(generated.stderr)")
    }
    let lua = try DissectorSupport.dissector([codec, "--spec", spec], name: name)
    let decoded = try Pktbench.run(["decode", capture.path, "--format", "ndjson", "--spec", spec] + decode)
    let dissected = try DissectorSupport.tshark(
      tshark, lua: lua, capture: capture.path, codec: name, options: options)
    #expect(dissected.count > 3)
    let problems = DissectorSupport.differences(
      ndjson: decoded.text, dissected: dissected, codec: codec, protocol: name)
    #expect(problems.isEmpty, "\(file):\n\(problems.prefix(12).joined(separator: "\n"))")
  }

  /// `--name` chooses the name; one that is not an identifier is refused.
  @Test func theNameIsChosenOrRefused() throws {
    let named = try Pktbench.run(["dissector", "dns", "--spec", "Specs/dns.ksy", "--name", "mydns"])
    #expect(named.status == 0)
    #expect(named.stderr.isEmpty)
    #expect(named.text.contains("P.name = \"mydns\""))
    let bad = try Pktbench.run(["dissector", "dns", "--spec", "Specs/dns.ksy", "--name", "my dns\n"])
    #expect(bad.status == 64)
    #expect(bad.stderr.split(separator: "\n").count == 1)
  }

  /// Nothing a spec says reaches the Lua but as a quoted string: a title
  /// with a newline and Lua after it, quotes and brackets in ids' docs and
  /// enum names, loads in tshark as text and runs nothing.
  @Test func specTextCannotRunInWireshark() throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let directory = try PublicProtocolSupport.captures()
    let marker = directory.appendingPathComponent("pwned-\(getpid())")
    let spec = directory.appendingPathComponent("hostile.ksy")
    try """
    meta:
      id: hostile
      title: "x\\nos.execute('touch \(marker.path)')\\n--"
      endian: be
    -pktbench:
      udp: [5004]
      notes: ["]] os.execute('touch \(marker.path)') --[["]
    seq:
      - id: kind
        type: u1
        enum: kind
        doc: "\\"); os.execute('touch \(marker.path)') --"
    enums:
      kind:
        1: {id: one, -orig-id: "x\\"); os.execute('touch \(marker.path)'); --"}
    """.write(to: spec, atomically: true, encoding: .utf8)
    let lua = try DissectorSupport.dissector(["hostile", "--spec", spec.path], name: "hostile")
    let text = try String(contentsOf: lua, encoding: .utf8)
    #expect(!text.contains("os.execute('touch \(marker.path)')\n"))
    let result = try Pktbench.runProgram(
      tshark, ["-X", "lua_script:\(lua.path)", "-r", directory.appendingPathComponent("rtp.pcap").path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: marker.path))
  }
}
