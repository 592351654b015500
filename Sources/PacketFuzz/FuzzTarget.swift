import PacketKit

/// Something the fuzzer can throw bytes at: a codec or a capture parser.
public protocol FuzzTarget: AnyObject {
  /// `rallie`, `pcap`, …: used in file names and `--codec`/`--target`.
  var name: String { get }
  /// A valid input to start mutating from, when the target can make one.
  func seed(rng: inout SplitMix64) -> [UInt8]?
  /// One generated-message round trip; nil when the target has none.
  func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure?
  /// Decodes one input and checks the invariants.
  func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure?
  /// Whether JSON-aware mutations suit its inputs.
  var isJSON: Bool { get }
  /// Puts a mutated input's lengths and checks right again, when the
  /// target knows how (a codec that adopts `FrameResealing`).
  func reseal(_ input: inout [UInt8], rng: inout SplitMix64)
}

extension FuzzTarget {
  public func reseal(_ input: inout [UInt8], rng: inout SplitMix64) {}
}

/// An invariant that did not hold, with the input that broke it.
public struct FuzzFailure: Error, Sendable {
  public var target: String
  /// `round-trip`, `re-encode`, `idempotence`, `range-outside-input`, `slow`, `untyped-error`.
  public var kind: String
  public var detail: String
  public var input: [UInt8]

  public init(target: String, kind: String, detail: String, input: [UInt8]) {
    self.target = target
    self.kind = kind
    self.detail = detail
    self.input = input
  }
}

/// What a run saw, per target.
public struct FuzzStats: Sendable {
  public var executions = 0
  public var roundTrips = 0
  public var decoded = 0
  /// Decode errors seen, by code: each is a typed error, not a failure.
  public var errorCodes = Tally()
  /// Message kinds (or parser events) decoded, by name.
  public var messageKinds = Tally()
  /// Field paths of decoded messages, or event names of parsers, seen.
  public var fields = FieldPaths()
  /// Generated values the codec refused to craft, by message kind.
  public var craftRefusals: [String: Int] = [:]
  public var failures = 0
  /// Round trips whose decoded message differs from the sent one only in
  /// what the wire cannot carry (it re-encodes to the same bytes).
  public var wireEquivalent = 0
  /// Time spent on this target, for its own executions per second: the
  /// sum over `workers` runs at once when merged.
  public var nanoseconds: UInt64 = 0
  /// How many runs these stats merge (`fuzz --jobs`).
  public var workers = 1

  /// Records a field or event name seen, up to `FieldPaths.limit`.
  public mutating func noteField(_ name: String) {
    fields.insert(name)
  }

  /// Of all workers together: each worker's time on this target is about
  /// the same, and they ran at once.
  public var executionsPerSecond: Double {
    nanoseconds == 0 ? 0 : Double(executions + roundTrips) * Double(workers) / (Double(nanoseconds) / 1e9)
  }

  /// Adds another worker's stats on the same target.
  public mutating func merge(_ other: FuzzStats) {
    executions += other.executions
    roundTrips += other.roundTrips
    decoded += other.decoded
    errorCodes.add(other.errorCodes)
    messageKinds.add(other.messageKinds)
    fields.formUnion(other.fields)
    craftRefusals.merge(other.craftRefusals, uniquingKeysWith: +)
    failures += other.failures
    wireEquivalent += other.wireEquivalent
    nanoseconds &+= other.nanoseconds
    workers += other.workers
  }

  public init() {}
}
