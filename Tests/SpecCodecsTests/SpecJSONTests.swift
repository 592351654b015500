import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

@testable import SpecCodecs

/// JSON messages in a spec, told apart by their keys: a made-up
/// thermostat that reports readings and takes set points.
@Suite struct SpecJSONTests {
  static let spec = """
    meta:
      id: thermo
    -pktbench:
      encoding: json
      udp: [5006]
      messages:
        - name: setpoint
          direction: app-to-device
          fields:
            - {name: type, type: string, fixed: set}
            - {name: target, type: number, unit: "°C", range: [5, 30]}
            - {name: mode, type: string, enum: [auto, manual], default: auto}
        - name: reading
          direction: device-to-app
          rate: {hz: 1}
          fields:
            - {name: temp, type: number, unit: "°C", range: [-40, 125]}
            - {name: seq, type: integer, range: [0, 65535]}
            - {name: heating, type: bool}
            - {name: note, type: string, optional: true}
    """

  func codec() throws -> SpecCodec { try SpecSupport.codec(Self.spec) }

  func decode(_ text: String) throws -> Decoded<SpecMessage> { try codec().decode(Array(text.utf8)) }

  @Test func kindsByTheirKeys() throws {
    let reading = try decode(#"{"seq": 7, "temp": 21.5, "heating": true}"#)
    #expect(reading.messageName == "reading")
    #expect(reading.diagnostics.isEmpty)
    #expect(reading.fields.map(\.name) == ["seq", "temp", "heating"])
    #expect(reading.fields.first(named: "temp")?.value == .number(21.5))
    #expect(reading.fields.first(named: "temp")?.unit == "°C")
    #expect(reading.fields.first(named: "temp")?.range == 19..<23)
    let setpoint = try decode(#"{"type":"set","target":19,"mode":"manual"}"#)
    #expect(setpoint.messageName == "setpoint")
    #expect(setpoint.fields.first(named: "mode")?.value == .enumeration(name: "manual", raw: 1))
  }

  @Test func craftsAndRoundTrips() throws {
    let codec = try codec()
    let bytes = try codec.craft("setpoint", values: CraftValues(["target": .number(19.5)]))
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"set","target":19.5,"mode":"auto"}"#)
    let reading = try codec.craft(
      "reading", values: CraftValues(["temp": .number(-3), "seq": .integer(9), "heating": .bool(false)]))
    #expect(String(decoding: reading, as: UTF8.self) == #"{"temp":-3,"seq":9,"heating":false}"#)
    #expect(try codec.encode(codec.decode(reading).message) == reading)
    #expect(throws: EncodeError.self) {
      try codec.craft("setpoint", values: CraftValues(["target": .number(40)]))
    }
  }

  @Test func damageAndWarnings() throws {
    func failure(_ text: String) -> (String, String?)? {
      do {
        _ = try decode(text)
        return nil
      } catch let error as DecodeError {
        return (error.code, error.keyPath)
      } catch {
        return ("?", nil)
      }
    }
    #expect(failure(#"{"seq": "7", "temp": 1, "heating": true}"#)! == ("wrong-type", "seq"))
    #expect(failure(#"{"seq": 7.5, "temp": 1, "heating": true}"#)! == ("wrong-type", "seq"))
    #expect(failure(#"{"temp": 1}"#)!.0 == "unknown-message")
    #expect(failure(#"[1, 2]"#)!.0 == "not-object")
    #expect(failure(#"{"temp": 1"#) != nil)
    let odd = try decode(#"{"seq": 70000, "temp": 1, "heating": true, "extra": 1}"#)
    #expect(odd.diagnostics.map(\.code) == ["out-of-range", "unknown-key"])
    let unknownMode = try decode(#"{"type":"set","target":19,"mode":"eco"}"#)
    #expect(unknownMode.diagnostics.map(\.code) == ["unknown-enum"])
  }

  @Test func probeAndSchema() throws {
    let codec = try codec()
    #expect(codec.probe(Array(#"{"seq": 7, "temp": 21.5, "heating": true}"#.utf8)) == 80)
    #expect(codec.probe(Array(#"{"left": 1}"#.utf8)) == 0)
    #expect(codec.probe([0x01, 0x02]) == 0)
    #expect(codec.info.encoding == .json)
    #expect(codec.info.wellKnown == [.udp(5006)])
    #expect(codec.info.message(named: "reading")?.fields.map(\.name) == ["temp", "seq", "heating", "note"])
  }

  /// The fuzzer's invariants on this spec: generated messages round-trip,
  /// mutated inputs decode or fail with a typed error, re-encode alike, and
  /// every field's range lies inside the input.
  @Test func fuzzInvariantsHold() throws {
    let report = FuzzRunner(
      targets: [SpecSupport.fuzzTarget(try codec())], configuration: .init(seed: 11, iterations: 20_000)
    )
    .run()
    #expect(
      report.failures.isEmpty,
      "\(report.failures.first.map { "\($0.kind): \($0.detail) \(Hex.spaced($0.input))" } ?? "")")
    #expect((report.stats.first?.1.roundTrips ?? 0) > 1000)
  }
}
