import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

/// The fuzzer's per-input checks must catch codecs that break their own
/// promises. A tiny codec (one byte, one field) is broken one way at a
/// time and each mutated-input check must name the broken promise.
@Suite struct CodecCheckTests {
  enum Fault: Sendable {
    case none
    /// Encodes a different byte than it decoded.
    case reencodesOtherBytes
    /// Refuses to encode what it decoded.
    case refusesToEncode
    /// `cleanFields` names another message than `decode`.
    case cleanFieldsLies
    /// `cleanKind` claims inputs `decode` refuses.
    case cleanKindClaimsDamage
    /// A field's byte range runs past the input.
    case rangePastInput
    /// Encodes to bytes it cannot decode (none at all).
    case encodesUndecodable
    /// Crafts the byte itself, but `encode` writes another.
    case craftsOtherwise
    /// Drops the low bit when encoding: an odd value comes back even, yet
    /// encodes to the very bytes it came from (what the wire cannot carry).
    case dropsLowBit
  }

  struct ByteCodec: FastFrameCodec {
    var fault: Fault

    var info: CodecInfo {
      CodecInfo(
        name: "byte", title: "one byte", transport: "test",
        messages: [
          MessageSchema(
            "value", summary: "a byte", direction: .either,
            fields: [FieldSchema("value", kind: .integer, range: 0...255, help: "the byte")])
        ])
    }

    func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<UInt8> {
      guard bytes.count == 1 else {
        let count = bytes.count
        throw DecodeError(code: "bad-length", offset: 0) { .init("\(count) bytes; expected 1") }
      }
      let end = fault == .rangePastInput ? 2 : 1
      return Decoded(
        message: bytes[0], messageName: "value",
        fields: [DissectionNode("value", .integer(Int64(bytes[0])), range: 0..<end)])
    }

    func encode(_ message: UInt8) throws(EncodeError) -> [UInt8] {
      switch fault {
      case .reencodesOtherBytes, .craftsOtherwise: return [message &+ 1]
      case .refusesToEncode: throw EncodeError(code: "refused", text: "this codec refuses")
      case .encodesUndecodable: return []
      case .dropsLowBit: return [message & 0xFE]
      default: return [message]
      }
    }

    func craftBytes(_ message: UInt8, values: CraftValues) throws(EncodeError) -> [UInt8] {
      fault == .craftsOtherwise ? [message] : try encode(message)
    }

    func probe(_ bytes: ByteView) -> Int { bytes.count == 1 ? 50 : 0 }

    func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? {
      fault == .cleanKindClaimsDamage || bytes.count == 1 ? 0 : nil
    }

    func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
      guard bytes.count == 1 else { return false }
      fields.removeAll()
      fields.message = fault == .cleanFieldsLies ? "other" : "value"
      fields.append(.init("value", .integer(Int64(bytes[0])), range: 0..<(fault == .rangePastInput ? 2 : 1)))
      return true
    }

    func message(_ message: String, from values: CraftValues) throws(EncodeError) -> UInt8 {
      UInt8(clamping: Int(values["value"]?.numericValue ?? 0))
    }

    func kind(of message: UInt8) -> String { "value" }
  }

  static func firstFailure(_ fault: Fault, inputs: [[UInt8]] = [[7], [], [1, 2]]) -> String? {
    let target = CodecFuzzTarget(.bound(ByteCodec(fault: fault)))
    var stats = FuzzStats()
    for input in inputs {
      if let failure = target.check(input, stats: &stats) { return failure.kind }
    }
    return nil
  }

  @Test func aSoundCodecPasses() {
    #expect(Self.firstFailure(.none) == nil)
  }

  @Test(arguments: [
    (Fault.reencodesOtherBytes, "idempotence"), (.refusesToEncode, "re-encode"),
    (.cleanFieldsLies, "clean-fields"), (.cleanKindClaimsDamage, "clean-kind"),
    (.rangePastInput, "range-outside-input"),
  ])
  func eachBrokenPromiseIsNamed(fault: Fault, kind: String) {
    #expect(Self.firstFailure(fault) == kind)
  }

  /// Round trips of generated messages (craft, decode, encode again): the
  /// first failure's kind in 200 of them, and what was counted.
  static func roundTrips(_ fault: Fault) -> (failure: String?, stats: FuzzStats) {
    let target = CodecFuzzTarget(.bound(ByteCodec(fault: fault)))
    var stats = FuzzStats()
    var rng = SplitMix64(seed: 11)
    for _ in 0..<200 {
      if let failure = target.roundTrip(rng: &rng, stats: &stats) { return (failure.kind, stats) }
    }
    return (nil, stats)
  }

  @Test(arguments: [
    (Fault.reencodesOtherBytes, "round-trip"), (.encodesUndecodable, "round-trip"),
    (.craftsOtherwise, "re-encode"), (.rangePastInput, "range-outside-input"),
  ])
  func eachBrokenRoundTripIsNamed(fault: Fault, kind: String) {
    #expect(Self.roundTrips(fault).failure == kind)
  }

  @Test func soundRoundTripsPassAndAreCounted() {
    let (failure, stats) = Self.roundTrips(.none)
    #expect(failure == nil)
    #expect(stats.roundTrips == 200)
    #expect(stats.wireEquivalent == 0)
  }

  /// A codec refusing to craft generated values is counted, not failed.
  @Test func refusedCraftsAreCounted() {
    let (failure, stats) = Self.roundTrips(.refusesToEncode)
    #expect(failure == nil)
    #expect(stats.roundTrips == 0)
    #expect(stats.craftRefusals.values.reduce(0, +) == 200)
  }

  /// An odd value comes back even but re-encodes to the same bytes: counted
  /// as wire-equivalent, not failed.
  @Test func wireEquivalentRoundTripsAreCounted() {
    let (failure, stats) = Self.roundTrips(.dropsLowBit)
    #expect(failure == nil)
    #expect(stats.roundTrips == 200)
    #expect(stats.wireEquivalent > 0 && stats.wireEquivalent < 200)
  }

  /// A seed asked for after a sound round trip is that round trip's
  /// message (generated, crafted and checked already): no values are drawn
  /// for it. The next seed, with no round trip between, is generated anew.
  @Test func aSeedAfterARoundTripReusesItsMessage() throws {
    let target = CodecFuzzTarget(.bound(ByteCodec(fault: .none)))
    var rng = SplitMix64(seed: 77)
    var stats = FuzzStats()
    #expect(target.roundTrip(rng: &rng, stats: &stats) == nil)
    #expect(stats.roundTrips == 1)
    let before = rng
    let reused = try #require(target.seed(rng: &rng))
    #expect(reused.count == 1)
    var untouched = before
    #expect(rng.next() == untouched.next(), "the reused seed drew nothing")
    let beforeFresh = rng
    _ = try #require(target.seed(rng: &rng))
    var unchanged = beforeFresh
    #expect(rng.next() != unchanged.next(), "a second seed is generated")
  }
}
