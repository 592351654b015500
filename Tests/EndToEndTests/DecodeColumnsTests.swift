import Foundation
import Testing

/// `decode --format csv|tsv`: Python's csv module reads the output of
/// every shipped capture, and each cell holds what ndjson holds for the
/// same message (read by Python's json module), nested codec fields
/// included.
@Suite struct DecodeColumnsTests {
  static let captures = [
    "Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap", "Captures/rallie-udp.pcap",
    "Captures/falconeye-ws.pcap", "Captures/falconeye-ws-deflate.pcap", "Captures/field-session.pcapng",
    "Captures/ble/legctrl-session.btsnoop", "Captures/ble/rallie-session.btsnoop",
    "Captures/damaged/rider-bad-json.pcap", "Captures/damaged/falconeye-lost-segment.pcap",
  ]

  /// Compares a csv/tsv file with an ndjson file, row by row; prints what differs.
  static let compare = #"""
    import csv, json, sys
    columns_path, ndjson_path, dialect = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(columns_path, newline="") as f:
        if dialect == "csv":
            rows = list(csv.reader(f, strict=True))
        else:
            rows = [line.rstrip("\n").split("\t") for line in f]
    records = [json.loads(line) for line in open(ndjson_path)]
    header, rows = rows[0], rows[1:]
    assert len(rows) == len(records), f"{len(rows)} rows, {len(records)} ndjson records"
    assert len(rows) > 0
    def lookup(record, name):
        parts = name.split(".")
        if parts[0] in ("frame", "time", "src", "dst", "transport", "codec", "message", "length"):
            return record.get(parts[0])
        if parts[0] == "error":
            return (record.get("error") or {}).get(parts[1]) if len(parts) > 1 else None
        if record.get("codec") != parts[0]:
            return None
        value = record.get("fields")
        for part in parts[1:]:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value
    def same(cell, value):
        if value is None or isinstance(value, dict):
            return cell == ""
        if isinstance(value, bool):
            return cell == ("true" if value else "false")
        if isinstance(value, list):
            return all(same(c, v) for c, v in zip(cell.split(","), value))
        if isinstance(value, (int, float)):
            return float(cell) == value
        return cell == str(value).replace("\t", " ") if dialect == "tsv" else cell == str(value)
    checked = 0
    for row, record in zip(rows, records):
        assert len(row) == len(header), f"row {row} has {len(row)} cells for {len(header)} columns"
        for name, cell in zip(header, row):
            value = lookup(record, name)
            assert same(cell, value), f"frame {record.get('frame')}: {name} is {cell!r} in {dialect}, {value!r} in ndjson"
            checked += value is not None
    assert checked > len(rows), "nothing but empty cells"
    print(len(rows), checked)
    """#

  static func check(_ capture: String, _ format: String, fields: [String]) throws {
    let directory = FileManager.default.temporaryDirectory
    let columns = directory.appendingPathComponent("pktbench-columns-\(UUID()).\(format)")
    let ndjson = directory.appendingPathComponent("pktbench-columns-\(UUID()).ndjson")
    defer {
      try? FileManager.default.removeItem(at: columns)
      try? FileManager.default.removeItem(at: ndjson)
    }
    let table = try Pktbench.run(["decode", capture, "--format", format] + fields)
    let lines = try Pktbench.run(["decode", capture, "--format", "ndjson"])
    try Data(table.stdout).write(to: columns)
    try Data(lines.stdout).write(to: ndjson)
    let result = try Pktbench.runProgram(
      "/usr/bin/env", ["python3", "-c", compare, columns.path, ndjson.path, format])
    #expect(result.status == 0, "\(capture) \(format) \(fields): \(result.stderr)")
  }

  @Test(arguments: captures) func defaultColumnsMatchNDJSON(capture: String) throws {
    try Self.check(capture, "csv", fields: [])
    try Self.check(capture, "tsv", fields: [])
  }

  @Test(arguments: captures) func nestedCodecFieldsMatchNDJSON(capture: String) throws {
    let fields =
      "frame,codec,message,legctrl.state,legctrl.header.msg_type,legctrl.battery_mv,rider.left,rider.right,"
      + "rallie.speed,falconeye.type,falconeye.payload.frameId,falconeye.payload.deviceInfo.hasLiDAR,"
      + "falconeye.payload.sessionId,error.code,error.text"
    try Self.check(capture, "csv", fields: ["--fields", fields])
  }

  @Test func csvIsRFC4180() throws {
    // A field with a comma and quotes (an error's text) is quoted, quotes
    // doubled; every line ends in CRLF; the header names the columns.
    let result = try Pktbench.run([
      "decode", "Captures/damaged/rider-bad-json.pcap", "--format", "csv", "--fields", "frame,error.text",
    ])
    #expect(result.status == 1 || result.status == 0)
    let text = result.text
    #expect(text.hasPrefix("frame,error.text\r\n"))
    #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    #expect(text.contains(",\""), "some error text needs quoting")
  }

  @Test func timeColumnTakesMinusT() throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let capture = "Captures/rallie-udp.pcap"
    let rows = try Pktbench.run(["decode", capture, "--format", "tsv", "--fields", "frame,time", "-t", "ud"])
      .text.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
    let shark = try Pktbench.runProgram(
      tshark, ["-r", capture, "-t", "ud"], environment: ["TZ": "UTC"]
    ).text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    var times: [String: String] = [:]
    for words in shark where words.count > 2 { times[words[0]] = "\(words[1]) \(words[2])" }
    #expect(rows.count == 12)
    for row in rows { #expect(times[row[0]] == row[1], "frame \(row[0])") }
    // Without -t, ndjson's Unix seconds.
    let plain = try Pktbench.run(["decode", capture, "--format", "csv", "--fields", "time"])
    #expect(plain.text.split(separator: "\r\n").dropFirst().first == "1795315972.330066")
  }

  @Test func anUnknownColumnIsAUsageError() throws {
    let result = try Pktbench.run([
      "decode", "Captures/rallie-udp.pcap", "--format", "csv", "--fields", "frame,nope",
    ])
    #expect(result.status == 64)
    #expect(result.stderr.contains("'nope' is not a field"))
    let notColumns = try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "--fields", "frame"])
    #expect(notColumns.status == 64)
  }
}
