import PacketFuzz

#if canImport(Glibc)
  import Glibc
#endif

/// libFuzzer entry point for the HCI/L2CAP/ATT parser: every invariant of
/// `pktbench fuzz` (typed errors, idempotence, ranges inside the input);
/// a broken one aborts so libFuzzer keeps the input.
nonisolated(unsafe) private let target = FuzzTargets.named("hci")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let target else { return 0 }
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  var stats = FuzzStats()
  if let failure = target.check(input, stats: &stats) {
    let text = Array("pktbench invariant broken [\(failure.kind)]: \(failure.detail)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
  }
  return 0
}
