/// The record numbers (1-based, as tshark's `frame.number`) that carried
/// the messages shown, for `decode -w`: one bit per record read, so two
/// million records cost 250 KB, whatever was kept.
package struct FrameSelection {
  private var words: [UInt64] = []
  /// How many distinct records are marked.
  package private(set) var count = 0

  package mutating func insert(_ frame: Int) {
    guard frame > 0 else { return }
    let word = frame >> 6
    if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
    let bit = UInt64(1) << UInt64(frame & 63)
    if words[word] & bit == 0 {
      words[word] |= bit
      count += 1
    }
  }

  package func contains(_ frame: Int) -> Bool {
    let word = frame >> 6
    guard frame > 0, word < words.count else { return false }
    return words[word] & (UInt64(1) << UInt64(frame & 63)) != 0
  }

  /// The highest record marked, so that a second reading can stop there.
  package var last: Int? {
    guard let index = words.lastIndex(where: { $0 != 0 }) else { return nil }
    return index << 6 + (63 - words[index].leadingZeroBitCount)
  }
}
