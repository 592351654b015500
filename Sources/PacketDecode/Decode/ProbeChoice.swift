import PacketKit

/// Picks a codec for a payload nobody named: every codec's probe scores
/// it and the best wins, if any scores above zero.
package struct ProbeChoice {
  package var codec: (any FrameCodec)?
  package var scores: [(name: String, score: Int)]

  package init(_ bytes: UnsafeRawBufferPointer, codecs: CodecSet, minimumScore: Int = 1) {
    let ranked = codecs.probe(bytes)
    scores = ranked.map { ($0.codec.info.name, $0.score) }
    codec = ranked.first.flatMap { $0.score >= minimumScore ? $0.codec : nil }
  }

  /// "probe: a 100 (next: b 10)"
  package var explanation: String {
    guard let best = scores.first else { return "probe: no codecs" }
    let rest = scores.dropFirst().map { "\($0.name) \($0.score)" }.joined(separator: ", ")
    return "probe: \(best.name) \(best.score)" + (rest.isEmpty ? "" : " (others: \(rest))")
  }
}
