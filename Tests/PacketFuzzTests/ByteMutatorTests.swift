import Testing

@testable import PacketFuzz

struct ByteMutatorTests {
  /// Duplicating a run gives what the standard library's insert gives, for
  /// every run of a 20-byte input (at its start, middle and end).
  @Test func duplicatingARunInsertsItsCopyAfterIt() {
    let input = (0..<20).map { UInt8($0 * 7 + 1) }
    for start in 0..<input.count {
      for count in 1...(input.count - start) {
        var expected = input
        expected.insert(contentsOf: input[start..<start + count], at: start)
        var bytes = input
        ByteMutator.duplicate(start..<start + count, in: &bytes)
        #expect(bytes == expected, "run \(start)..<\(start + count)")
      }
    }
  }

  @Test func duplicatingWritesTheRunTwice() {
    var bytes: [UInt8] = [0, 1, 2, 3, 4, 5]
    ByteMutator.duplicate(2..<5, in: &bytes)
    #expect(bytes == [0, 1, 2, 3, 4, 2, 3, 4, 5])
    ByteMutator.duplicate(0..<1, in: &bytes)
    #expect(bytes == [0, 0, 1, 2, 3, 4, 2, 3, 4, 5])
  }

  /// A buffer shared with another array is not written through.
  @Test func aSharedBufferIsLeftAlone() {
    var bytes: [UInt8] = [9, 8, 7]
    let shared = bytes
    ByteMutator.duplicate(1..<3, in: &bytes)
    #expect(bytes == [9, 8, 7, 8, 7])
    #expect(shared == [9, 8, 7])
  }
}
