import BuiltinCodecs
import Foundation
import PacketFuzz
import PacketKit
import SpecCodecs

/// Loading specs in tests: the shipped ones by path, made-up ones from text.
enum SpecSupport {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static func shipped(_ name: String) throws -> SpecCodec {
    SpecCodec(try SpecLoader.load(path: root.appendingPathComponent("Specs/\(name).ksy").path))
  }

  static func codec(_ text: String, file: String = "test.ksy") throws -> SpecCodec {
    SpecCodec(try SpecLoader.load(text: text, file: file))
  }

  /// The fuzzer's target for a spec codec. Its time bound (a slow input is
  /// a finding when fuzzing) is a minute: tests judge the invariants, and
  /// a machine shared by several builds can stall a debug build's decode.
  static func fuzzTarget(_ codec: SpecCodec) -> CodecFuzzTarget {
    let target = CodecFuzzTarget(.bound(codec))
    target.timeBoundNanoseconds = 60_000_000_000
    return target
  }

  /// The load error's one line, or nil when it loads.
  static func loadError(_ text: String) -> String? {
    do {
      _ = try SpecLoader.load(text: text, file: "x.ksy")
      return nil
    } catch {
      return error.description
    }
  }

  static func bytes(_ hex: String) -> [UInt8] {
    (try? Hex.parse(hex)) ?? []
  }
}

extension SpecSupport {
  /// Decodes `hex` with the spec `text`.
  static func decode(_ text: String, _ hex: String) throws -> Decoded<SpecMessage> {
    try codec(text).decode(bytes(hex))
  }

  /// The decode error's code and offset, or nil when it decodes.
  static func failure(_ text: String, _ hex: String) throws -> (code: String, offset: Int?)? {
    let codec = try codec(text)
    do {
      _ = try codec.decode(bytes(hex))
      return nil
    } catch {
      return (error.code, error.offset)
    }
  }

  /// The value at a dotted path of the dissection (`header.version`,
  /// `items.[1].x`), groups and arrays as their folded values.
  static func value(_ nodes: [DissectionNode], _ path: String) -> FieldValue? {
    var current = nodes
    var found: DissectionNode?
    for part in path.split(separator: ".") {
      guard let node = current.first(where: { $0.name == part }) else { return nil }
      found = node
      current = node.children
    }
    return found?.foldedValue
  }

  /// Where the node at a dotted path lies.
  static func range(_ nodes: [DissectionNode], _ path: String) -> Range<Int>? {
    var current = nodes
    var found: DissectionNode?
    for part in path.split(separator: ".") {
      guard let node = current.first(where: { $0.name == part }) else { return nil }
      found = node
      current = node.children
    }
    return found?.range
  }
}
