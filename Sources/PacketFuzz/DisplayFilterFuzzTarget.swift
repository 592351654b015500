import PacketKit

/// The display filter's parser and evaluator (`-Y`), regular expressions
/// included: the input is a filter's text. Invariants: compiling returns a
/// filter or a syntax error whose column lies in the text (never a trap or
/// a stack overflow, however deep the nesting); a compiled filter answers
/// for every kind of value, the same twice, within its step budget and in
/// bounded time.
public final class DisplayFilterFuzzTarget: FuzzTarget {
  /// The steps each record gets, far fewer than a run's (`FilterBudget`).
  static let steps = 20_000

  public init() {}
  public var name: String { "filter" }
  public var isJSON: Bool { false }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    var text = ""
    FilterGrammar.expression(into: &text, depth: 0, rng: &rng)
    return Array(text.utf8)
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    let start = monotonicNanoseconds()
    let text = String(decoding: input, as: UTF8.self)
    let filter: DisplayFilter
    do {
      filter = try DisplayFilter(text, vocabulary: FuzzVocabulary())
    } catch {
      stats.errorCodes.add(Self.kind(of: error.message))
      let columns = text.unicodeScalars.count + 1
      guard (1...max(columns, 1)).contains(error.column), !error.message.isEmpty else {
        return FuzzFailure(
          target: name, kind: "column", detail: "\(error) in a filter of \(columns - 1) characters",
          input: input)
      }
      return .bounds(target: name, input: input, buffered: 0, limit: 0, startedAt: start)
    }
    stats.decoded += 1
    for record in FuzzFilterRecord.all {
      // A small budget: running out of it is exercised too, and cheaply.
      var first = FilterBudget(steps: Self.steps)
      var second = FilterBudget(steps: Self.steps)
      let kept = filter.matches(record, budget: &first)
      if filter.matches(record, budget: &second) != kept || first.isExhausted != second.isExhausted {
        return FuzzFailure(
          target: name, kind: "unstable", detail: "two evaluations of one record differ", input: input)
      }
      if first.steps < 0 {
        return FuzzFailure(target: name, kind: "budget", detail: "\(first.steps) steps left", input: input)
      }
      stats.messageKinds.add(first.isExhausted ? "gave-up" : kept ? "kept" : "dropped")
    }
    return .bounds(target: name, input: input, buffered: 0, limit: 0, startedAt: start)
  }

  /// An error's kind for the tally: its words up to the first quote or digit.
  private static func kind(of message: String) -> String {
    var kind = String.UnicodeScalarView()
    for scalar in message.unicodeScalars.prefix(40) {
      if scalar == "'" || scalar == "(" || ("0"..."9").contains(scalar) { break }
      kind.append(scalar)
    }
    while kind.last == " " { kind.removeLast() }
    return String(kind)
  }
}

/// Names as a front end resolves them: a few roots, any path after them.
struct FuzzVocabulary: FilterVocabulary {
  static let roots = ["frame", "src", "rider", "legctrl", "falconeye", "ws", "error", "diagnostics"]

  func resolve(_ parts: [Substring]) -> (root: Int, parts: Int)? {
    Self.roots.firstIndex { $0 == parts.first ?? "" }.map { ($0, 1) }
  }

  func unknown(_ name: String) -> String { "the roots are \(Self.roots.joined(separator: ", "))" }
}

/// Records whose every field has one kind of value, so each filter meets
/// text (hostile and plain), numbers at their limits, booleans, bytes,
/// enumerations, groups and absence.
struct FuzzFilterRecord: FilterRecord {
  enum Kind {
    case texts, numbers, booleans, bytes, enumerations, groups, nothing
  }

  static let all: [FuzzFilterRecord] = [
    .init(kind: .texts), .init(kind: .numbers), .init(kind: .booleans), .init(kind: .bytes),
    .init(kind: .enumerations), .init(kind: .groups), .init(kind: .nothing),
  ]

  static let texts = [
    String(repeating: "a", count: 25) + "!", "f-0001", "漢字\u{202E}x", "", "a\nb",
    String(repeating: "ab", count: 300),
  ]

  let kind: Kind

  func visitValues(of field: FilterField, _ visit: (FilterValue) -> Bool) {
    switch kind {
    case .texts:
      for text in Self.texts where !FilterValue.visit(.string(text), visit) { return }
    case .numbers:
      for value: FieldValue in [.integer(0), .integer(.min), .unsigned(.max), .number(-1e300), .number(0.5)]
      where !FilterValue.visit(value, visit) { return }
    case .booleans:
      for value in [true, false] where !visit(.boolean(value)) { return }
    case .bytes: FilterValue.visit(.bytes([0x5A, 0xA5, 0x00]), visit)
    case .enumerations: FilterValue.visit(.enumeration(name: "FAULT", raw: 2), visit)
    case .groups: _ = visit(.present)
    case .nothing: break
    }
  }
}
