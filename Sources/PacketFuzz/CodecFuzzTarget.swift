import PacketKit

/// Fuzzes one codec: round trips of generated messages, and mutated
/// inputs checked for typed errors, idempotence, ranges and time. It calls
/// the codec through its bound entry points (`CodecCalls`), compiled for
/// the codec's own types: run here, in code generic over every codec, the
/// same steps instantiated generic metadata on every input.
public final class CodecFuzzTarget: FuzzTarget {
  public let calls: CodecCalls
  private let generator = MessageGenerator()
  /// One input may take at most this long to decode.
  public var timeBoundNanoseconds: UInt64 = 250_000_000

  /// The names and fields of `codec.info.messages`, once (info is a large
  /// value, and so is each message's schema).
  private let messageNames: [String]
  private let messageFields: [[FieldSchema]]

  /// `cleanFields`' answer for the input under test: one value, reused
  /// (a new one per input wrote all twelve of its slots).
  private var flat = FlatFields()
  /// Whether the codec's payloads are JSON (asked on every mutation).
  public let isJSON: Bool
  /// The codec's own way to put a mutant's lengths and checks right.
  private let resealing: (any FrameResealing)?

  public init(_ calls: CodecCalls) {
    self.calls = calls
    let info = calls.codec.info
    let messages = info.messages
    messageNames = messages.map(\.name)
    messageFields = messages.map(\.fields)
    isJSON = info.encoding == .json
    resealing = calls.codec as? any FrameResealing
  }

  public func reseal(_ input: inout [UInt8], rng: inout SplitMix64) {
    resealing?.reseal(&input, choice: rng.next())
  }

  public var name: String { calls.name }

  /// A message kind picked at random and generated craft values for it.
  private func generated(rng: inout SplitMix64) -> (kind: String, values: CraftValues)? {
    guard !messageNames.isEmpty else { return nil }
    let index = rng.below(messageNames.count)
    return (messageNames[index], generator.values(for: messageFields[index], rng: &rng))
  }

  /// The last round trip's message, not yet handed out as a seed: it was
  /// generated, crafted and checked already, so the next seed is taken
  /// from here rather than generated and crafted again.
  private var unusedRoundTrip: [UInt8]?

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    if let bytes = unusedRoundTrip {
      unusedRoundTrip = nil
      return bytes
    }
    guard let (kind, values) = generated(rng: &rng) else { return nil }
    return calls.craft(kind, values: values)
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? {
    guard let (kind, values) = generated(rng: &rng) else { return nil }
    switch calls.craftCheck(kind, values: values) {
    case .refused(let error):
      stats.craftRefusals["\(kind) (\(error.code) \(error.field ?? ""))", default: 0] += 1
      return nil
    case .doesNotDecode(let bytes, let error):
      stats.roundTrips += 1
      return failure(
        "round-trip", "\(kind) encoded by the codec does not decode: [\(error.code)] \(error.text)", bytes)
    case .differs(let bytes, let sent, let decoded):
      stats.roundTrips += 1
      return failure(
        "round-trip", "\(kind) decodes to a different message:\n  sent    \(sent)\n  decoded \(decoded)",
        bytes)
    case .decoded(let bytes, let fields, let problem, let wireEquivalent):
      // A message may differ from what was sent only in what the wire cannot
      // carry (a Rallie frame whose check byte is valid under both variants):
      // it then re-encodes to the very same bytes (craftCheck tells).
      stats.roundTrips += 1
      if wireEquivalent { stats.wireEquivalent += 1 }
      if let outside = rangeOutside(fields, count: bytes.count) {
        return failure("range-outside-input", outside, bytes)
      }
      switch problem {
      case nil:
        unusedRoundTrip = bytes
        return nil
      case .refusesToEncode(let error):
        return failure(
          "re-encode", "\(kind) decoded from valid bytes refuses to encode: \(error.text)", bytes)
      case .reencodes(let again):
        return failure(
          "re-encode", "\(kind) re-encodes to other bytes: \(Hex.spaced(again.prefix(32)))", bytes)
      }
    }
  }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    input.withUnsafeBytes { check($0, input, stats: &stats) }
  }

  /// `check` with the input's bytes in scope: the codec's answers stay local
  /// (returned out of the closure, they were copied and destroyed through
  /// generic value witnesses on every input).
  private func check(_ bytes: UnsafeRawBufferPointer, _ input: [UInt8], stats: inout FuzzStats)
    -> FuzzFailure?
  {
    stats.executions += 1
    let start = coarseMonotonicNanoseconds()
    let clean = calls.cleanKind(bytes)
    let isFlat = calls.cleanFields(bytes, &flat)
    switch calls.selfCheck(bytes) {
    case .refused(let error):
      stats.errorCodes.add(error.code)
      if let clean {
        return failure(
          "clean-kind", "cleanKind says \(clean) but decode fails: [\(error.code)] \(error.text)", input)
      }
      if isFlat {
        return failure(
          "clean-fields", "cleanFields gives \(flat.message) but decode fails: [\(error.code)] \(error.text)",
          input)
      }
      return slow(start, input)
    case .decoded(let result, let problem):
      return check(
        result, problem, isFlat: isFlat, clean: clean, start: start, input, stats: &stats)
    }
  }

  /// The invariants of an input that decodes, where the self-check's answer
  /// was bound (so the large answer is not copied): `flat` (when `isFlat`)
  /// and `clean` are what `cleanFields` and `cleanKind` said.
  private func check(
    _ result: DecodedFrame, _ problem: SelfCheck.Problem?, isFlat: Bool, clean: Int?,
    start: UInt64, _ input: [UInt8], stats: inout FuzzStats
  ) -> FuzzFailure? {
    // Summary lines and ndjson write such messages from the flat fields alone:
    // they must be exactly decode's message and fields, with no diagnostics.
    if isFlat,
      result.message != flat.message.description || !result.diagnostics.isEmpty
        || !flat.matches(result.fields)
    {
      return failure(
        "clean-fields",
        "cleanFields gives \(flat.message) \(flat.nodes.map(\.name)) but decode gives "
          + "\(result.message) \(result.fields.map(\.name)) with \(result.diagnostics.map(\.code))",
        input)
    }
    // ndjson and summary lines copy a verbatim field's payload text.
    if isFlat, let wrong = input.withUnsafeBytes({ flat.falseVerbatim(in: $0) }) {
      return failure(
        "clean-fields",
        "cleanFields marks \(wrong.name) verbatim, but its text \(wrong.text) is written \(wrong.written)",
        input)
    }
    if let slow = slow(start, input) { return slow }
    // `decode --stats` counts by cleanKind alone: it must name the kind decode
    // finds, and only for inputs without a single diagnostic.
    if let clean {
      guard clean >= 0, clean < messageNames.count, messageNames[clean] == result.message,
        result.diagnostics.isEmpty
      else {
        return failure(
          "clean-kind",
          "cleanKind says \(clean) but decode gives \(result.message) with "
            + "\(result.diagnostics.map(\.code)) ", input)
      }
    }
    stats.decoded += 1
    let newKind = stats.messageKinds.add(result.message)
    // Field paths are a coverage signal: gathered from every 8th decode (and
    // each new kind's first), hashed without building them (`FieldPaths`).
    // Unknown JSON keys are named by the input: the set is bounded.
    if stats.fields.count < FieldPaths.limit, newKind || stats.decoded & 7 == 0 {
      collectFields(
        result.fields, path: FieldPaths.hash(FieldPaths.emptyPath, appending: result.message),
        into: &stats.fields)
    }
    if let outside = rangeOutside(result.fields, count: input.count) {
      return failure("range-outside-input", outside, input)
    }
    for diagnostic in result.diagnostics {
      if let range = diagnostic.range, range.lowerBound < 0 || range.upperBound > input.count {
        return failure(
          "range-outside-input", "diagnostic \(diagnostic.code) range \(range) outside \(input.count) bytes",
          input)
      }
    }
    // Idempotence: what decodes re-encodes and decodes to the same message.
    switch problem {
    case nil:
      return nil
    case .refusesToEncode(let error):
      return failure("re-encode", "a decoded \(result.message) refuses to encode: \(error.text)", input)
    case .differs(let first, let again):
      return failure(
        "idempotence",
        "decode(encode(m)) != m for \(result.message):\n  m       \(first)\n  again   \(again)",
        input)
    case .reencodedDoesNotDecode(let error):
      return failure(
        "idempotence", "re-encoded \(result.message) does not decode: [\(error.code)] \(error.text)", input)
    }
  }

  private func slow(_ start: UInt64, _ input: [UInt8]) -> FuzzFailure? {
    let elapsed = coarseMonotonicNanoseconds() &- start
    guard elapsed > timeBoundNanoseconds else { return nil }
    return failure(
      "slow",
      "decode and re-encode took \(elapsed / 1_000_000) ms (bound \(timeBoundNanoseconds / 1_000_000) ms)",
      input)
  }

  private func failure(_ kind: String, _ detail: String, _ input: [UInt8]) -> FuzzFailure {
    FuzzFailure(target: name, kind: kind, detail: detail, input: input)
  }

  /// Reads each node's range and children in place (a `for node in`
  /// loop copied every node, retaining and releasing its name and values).
  private func rangeOutside(_ nodes: [DissectionNode], count: Int) -> String? {
    for index in nodes.indices {
      let range = nodes[index].range
      if range.lowerBound < 0 || range.upperBound > count {
        return "field \(nodes[index].name) range \(range) lies outside the \(count)-byte input"
      }
      if !nodes[index].children.isEmpty, let inner = rangeOutside(nodes[index].children, count: count) {
        return inner
      }
    }
    return nil
  }

  /// Adds `prefix.name` for each node and its children's paths below it,
  /// skipping array elements (`[3]`); `path` is the prefix's hash.
  private func collectFields(_ nodes: [DissectionNode], path: UInt64, into paths: inout FieldPaths) {
    for node in nodes where node.name.utf8.first != UInt8(ascii: "[") {
      let name = FieldPaths.hash(FieldPaths.hash(path, appending: UInt8(ascii: ".")), appending: node.name)
      paths.insert(hash: name)
      collectFields(node.children, path: name, into: &paths)
    }
  }
}
