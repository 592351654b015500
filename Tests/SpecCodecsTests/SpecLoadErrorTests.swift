import PacketKit
import Testing

@testable import SpecCodecs

/// A bad spec file is one line naming the file, the line and the key.
@Suite struct SpecLoadErrorTests {
  static let base = """
    name: toy
    header:
      - {name: kind, type: u8}
    discriminator: kind
    messages:
      - name: a
        when: 1
        fields:
          - name: level
            type: uint
            width: WIDTH
    """

  @Test func widthOutsideTheList() {
    #expect(
      SpecSupport.loadError(Self.base.replacingOccurrences(of: "WIDTH", with: "12"))
        == "x.yaml:11: key 'width': expected 8, 16, 24, 32 or 64, found 12")
    #expect(SpecSupport.loadError(Self.base.replacingOccurrences(of: "WIDTH", with: "16")) == nil)
  }

  @Test(arguments: [
    ("name: toy\nmessages: []\n", "x.yaml:2: key 'messages': expected at least one message"),
    (
      "name: Toy\nmessages: [{name: a}]\n",
      "x.yaml:1: key 'name': expected a lower-case name of letters, digits, '_' and '-', found 'Toy'"
    ),
    (
      "name: toy\ncolour: red\nmessages: [{name: a}]\n",
      "x.yaml:2: key 'colour': unknown key; expected one of "
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u12}\n",
      "x.yaml:5: key 'type': expected u8, u16, u24, u32, u64, i8 … i64, f32, f64, uint, int, float, bytes, string, group or repeat, found 'u12'"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, unit: furlongs}\n",
      "x.yaml:5: key 'unit': expected one of the units "
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, check: {algorithm: crc32}}\n",
      "x.yaml:5: key 'check': crc32 is 32 bits; the field is 8"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, fixed: 300}\n",
      "x.yaml:5: key 'fixed': 300 does not fit an unsigned 8-bit field"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: n, type: u8, length-of: data}\n",
      "x.yaml:5: key 'length-of': no field 'data' in a's layout"
    ),
    (
      "name: toy\nheader: [{name: k, type: u8}]\ndiscriminator: kind\nmessages: [{name: a, when: 1}]\n",
      "x.yaml:1: key 'discriminator': no header field 'kind'"
    ),
    (
      "name: toy\nheader: [{name: k, type: u8, enum: {A: 1}}]\ndiscriminator: k\nmessages: [{name: a, when: B}]\n",
      "x.yaml:4: key 'when': expected a number or one of A, found 'B'"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, offset: 3}\n",
      "x.yaml:5: key 'offset': expected 0 (where the fields before it end), found 3"
    ),
    (
      "name: toy\nmessages: [{name: a, fields: [{name: x, type: u8}, {name: x, type: u8}]}]\n",
      "x.yaml:2: key 'name': 'x' is already a field here (line 2)"
    ),
    (
      "name: toy\nencoding: json\nmessages:\n  - name: a\n    fields:\n      - {name: n, type: integer, length-of: s}\n",
      "x.yaml:6: key 'length-of': a JSON key is a value, fixed or expected; length-of is for binary layouts"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, error: bad-x}\n",
      "x.yaml:5: key 'error': an error code is for a fixed, length-of, count-of or check field; this field has none"
    ),
    (
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: x, type: u8, fixed: 1, warning: odd-x}\n",
      "x.yaml:5: key 'warning': a warning code is for an expect field; this field has no expect"
    ),
    ("name: toy\nmessages:\n  - name: a\n   fields: []\n", "x.yaml:4: not valid YAML or JSON"),
    (
      "{\"name\": \"toy\", \"messages\": [{\"name\": \"a\", \"fields\": [{\"name\": \"x\", \"type\": \"u9\"}]}]}",
      "x.yaml:1: key 'type': expected u8"
    ),
  ])
  func oneLine(text: String, expected: String) {
    let error = SpecSupport.loadError(text)
    #expect(error?.hasPrefix(expected) == true, "\(error ?? "loaded")")
  }

  /// `error:` beside `check:` names the check's error, as it does a fixed field's.
  @Test func checkErrorBesideTheCheck() throws {
    let codec = try SpecSupport.codec(
      "name: toy\nmessages:\n  - name: a\n    fields:\n      - {name: v, type: u8}\n"
        + "      - {name: crc, type: u8, check: {algorithm: xor}, error: bad-crc}\n")
    #expect(throws: DecodeError.self) { try codec.decode([0x05, 0x04]) }
    do {
      _ = try codec.decode([0x05, 0x04])
    } catch {
      #expect(error.code == "bad-crc")
    }
    #expect(try codec.decode([0x05, 0x05]).messageName == "a")
  }

  @Test func unreadableFile() {
    do {
      _ = try SpecLoader.load(path: "/nonexistent/x.yaml")
      Issue.record("loaded")
    } catch {
      #expect(error.description == "/nonexistent/x.yaml: cannot read it (No such file or directory)")
    }
  }

  @Test func jsonSpecsLoadToo() throws {
    let codec = try SpecSupport.codec(
      """
      {"name": "toy", "byte-order": "little",
       "messages": [{"name": "level", "fields": [{"name": "mv", "type": "u16", "unit": "mV", "range": [0, 5000]}]}]}
      """)
    #expect(try codec.craft("level", values: .init(["mv": .integer(4660)])) == [0x34, 0x12])
  }
}
