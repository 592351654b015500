import BuiltinCodecs
import Foundation
import PacketFuzz
import PacketKit
import Testing

@testable import SpecCodecs

/// Every message of every shipped spec crafts, decodes as itself and
/// re-encodes to the same bytes; and each spec holds the fuzzer's
/// invariants (round trips of generated messages, mutated inputs decode
/// or fail with a typed error, ranges inside the input).
@Suite struct ShippedSpecRoundTripTests {
  static let specs: [String] = {
    let directory = SpecSupport.root.appendingPathComponent("Specs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".ksy") }.sorted().map { "Specs/\($0)" } + ["Examples/beacon.ksy"]
  }()

  static func codec(_ path: String) throws -> SpecCodec {
    SpecCodec(try SpecLoader.load(path: SpecSupport.root.appendingPathComponent(path).path))
  }

  /// A value every field takes: its default, else the low end of its
  /// range, the first enum case, false, "a", no bytes.
  static func plain(_ field: FieldSchema) -> FieldValue {
    if let value = field.defaultValue { return value }
    switch field.kind {
    case .enumeration(let cases): return .enumeration(name: cases[0].name, raw: cases[0].raw)
    case .bool: return .bool(false)
    case .string: return .string("a")
    case .bytes, .file: return .bytes([])
    case .integer: return .integer(Int64(field.range?.lowerBound ?? 0))
    case .number: return .number(field.range?.lowerBound ?? 0)
    }
  }

  @Test(arguments: specs)
  func everyMessageRoundTrips(path: String) throws {
    let codec = try Self.codec(path)
    #expect(!codec.info.messages.isEmpty)
    for message in codec.info.messages {
      var values: [String: FieldValue] = [:]
      for field in message.fields { values[field.name] = Self.plain(field) }
      let bytes = try codec.craft(message.name, values: CraftValues(values))
      let decoded = try codec.decode(bytes)
      #expect(
        decoded.messageName == message.name, "\(path) \(message.name): decoded as \(decoded.messageName)")
      #expect(try codec.encode(decoded.message) == bytes, "\(path) \(message.name) re-encodes")
    }
  }

  @Test(arguments: specs)
  func fuzzInvariantsHold(path: String) throws {
    let report = FuzzRunner(
      targets: [SpecSupport.fuzzTarget(try Self.codec(path))],
      configuration: .init(seed: 3, iterations: 10_000)
    ).run()
    #expect(
      report.failures.isEmpty,
      "\(path): \(report.failures.first.map { "\($0.kind): \($0.detail) \(Hex.spaced($0.input))" } ?? "")")
  }
}
