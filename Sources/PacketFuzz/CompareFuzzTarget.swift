import PacketKit

/// Two codecs of one protocol fed the same inputs (a spec codec and the
/// built-in it replaces): each mutated input must decode to the same
/// message, fields, byte ranges and diagnostic codes, or fail with the
/// same error code at the same offset; each generated message must craft
/// to the same bytes, or be refused by both. Words (error and diagnostic
/// texts) may differ.
public final class CompareFuzzTarget<Reference: FrameCodec, Candidate: FrameCodec>: FuzzTarget {
  public let reference: Reference
  public let candidate: Candidate
  private let generator = MessageGenerator()
  private let messageNames: [String]
  private let messageFields: [[FieldSchema]]
  public let isJSON: Bool

  public init(reference: Reference, candidate: Candidate) {
    self.reference = reference
    self.candidate = candidate
    let messages = reference.info.messages
    messageNames = messages.map(\.name)
    messageFields = messages.map(\.fields)
    isJSON = reference.info.encoding == .json
  }

  /// `compare-legctrl`.
  public var name: String { "compare-\(reference.name)" }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    guard !messageNames.isEmpty else { return nil }
    let index = rng.below(messageNames.count)
    let values = generator.values(for: messageFields[index], rng: &rng)
    return try? reference.craft(messageNames[index], values: values)
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? {
    guard !messageNames.isEmpty else { return nil }
    let index = rng.below(messageNames.count)
    var values = generator.values(for: messageFields[index], rng: &rng)
    if rng.chance(1, in: 4) { values.force = true }
    let kind = messageNames[index]
    stats.roundTrips += 1
    let expected = Result { () throws(EncodeError) in try reference.craft(kind, values: values) }
    let found = Result { () throws(EncodeError) in try candidate.craft(kind, values: values) }
    switch (expected, found) {
    case (.success(let a), .success(let b)) where a == b: return nil
    case (.failure(let a), .failure(let b)) where a.code == b.code:
      stats.craftRefusals["\(kind) (\(a.code))", default: 0] += 1
      return nil
    default:
      return FuzzFailure(
        target: name, kind: "craft-differs",
        detail: "\(kind): \(reference.name) \(Self.describe(expected)), the other \(Self.describe(found))",
        input: (try? expected.get()) ?? (try? found.get()) ?? [])
    }
  }

  private static func describe(_ result: Result<[UInt8], EncodeError>) -> String {
    switch result {
    case .success(let bytes): "crafts \(Hex.spaced(bytes))"
    case .failure(let error): "refuses [\(error.code)] \(error.text)"
    }
  }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    let (expected, found) = ByteView.of(input) { (reference.decodeFrame($0), candidate.decodeFrame($0)) }
    if let difference = Self.difference(expected, found) {
      return FuzzFailure(target: name, kind: "decode-differs", detail: difference, input: input)
    }
    switch expected {
    case .decoded(let frame):
      stats.decoded += 1
      stats.messageKinds.add(frame.message)
    case .failed(_, let error):
      stats.errorCodes.add(error.code)
    }
    return nil
  }

  /// What differs between two decodes of one input, in words; nil: nothing
  /// but words.
  public static func difference(_ expected: FrameDecode, _ found: FrameDecode) -> String? {
    switch (expected, found) {
    case (.failed(_, let a), .failed(_, let b)):
      guard a.code == b.code, a.offset == b.offset else {
        return "errors differ: [\(a.code)] at \(a.offset.map(String.init) ?? "-") against [\(b.code)] at "
          + "\(b.offset.map(String.init) ?? "-") (\(a.text) / \(b.text))"
      }
      return nil
    case (.decoded(let a), .decoded(let b)):
      if a.message != b.message { return "messages differ: \(a.message) against \(b.message)" }
      if a.fields != b.fields {
        return "fields of \(a.message) differ:\n  \(describe(a.fields))\n  \(describe(b.fields))"
      }
      let left = a.diagnostics.map { "\($0.severity.rawValue) \($0.code) \($0.range.map { "\($0)" } ?? "-")" }
      let right = b.diagnostics.map {
        "\($0.severity.rawValue) \($0.code) \($0.range.map { "\($0)" } ?? "-")"
      }
      if left != right { return "diagnostics of \(a.message) differ: \(left) against \(right)" }
      return nil
    case (.failed(_, let error), .decoded(let frame)):
      return
        "one fails [\(error.code)] at \(error.offset.map(String.init) ?? "-") (\(error.text)), the other decodes \(frame.message)"
    case (.decoded(let frame), .failed(_, let error)):
      return
        "one decodes \(frame.message), the other fails [\(error.code)] at \(error.offset.map(String.init) ?? "-") (\(error.text))"
    }
  }

  private static func describe(_ nodes: [DissectionNode]) -> String {
    nodes.map { node in
      let inner = node.children.isEmpty ? node.value.display : "{" + describe(node.children) + "}"
      return "\(node.name)=\(inner)@\(node.range)\(node.unit.map { " \($0)" } ?? "")"
    }.joined(separator: " ")
  }
}
