import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What every libFuzzer harness in Fuzz/ does with one input: run the named
/// target's checks, and abort on a broken invariant so libFuzzer keeps the
/// input (a trap aborts by itself).
public enum LibFuzzerEntry {
  nonisolated(unsafe) private static var targets: [String: FuzzTarget] = [:]

  /// `codecs`: the codecs the harness is built with (asked once).
  public static func testOneInput(
    _ targetName: String, codecs: @autoclosure () -> CodecSet, _ data: UnsafePointer<UInt8>?, _ size: Int
  ) -> Int32 {
    let target: FuzzTarget
    if let cached = targets[targetName] {
      target = cached
    } else if let made = FuzzTargets(codecs: codecs()).named(targetName) {
      targets[targetName] = made
      target = made
    } else {
      return 0
    }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var stats = FuzzStats()
    if let failure = target.check(input, stats: &stats) {
      let text = Array("pktbench invariant broken [\(failure.kind)]: \(failure.detail)\n".utf8)
      _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
      abort()
    }
    return 0
  }
}

extension FuzzFailure {
  /// The resource bounds every parser target checks after an input: bytes
  /// still buffered against the limit, and the time the input took.
  static func bounds(
    target: String, input: [UInt8], buffered: Int, limit: Int, startedAt start: UInt64
  ) -> FuzzFailure? {
    if buffered > limit {
      return FuzzFailure(
        target: target, kind: "unbounded", detail: "\(buffered) bytes buffered", input: input)
    }
    let elapsed = monotonicNanoseconds() &- start
    if elapsed > 500_000_000 {
      return FuzzFailure(target: target, kind: "slow", detail: "\(elapsed / 1_000_000) ms", input: input)
    }
    return nil
  }
}
