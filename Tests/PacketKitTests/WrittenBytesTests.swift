import PacketKit
import Testing

/// `[UInt8].written` keeps exactly the bytes its body wrote, on both sides
/// of the size where it stops writing on the stack first.
@Suite struct WrittenBytesTests {
  @Test(arguments: [0, 1, 7, 1023, 1024, 1025, 4096, 100_000])
  func keepsWhatTheBodyWrote(count: Int) {
    for kept in Set([0, count / 2, count]) {
      let bytes = [UInt8].written(count: count) { buffer in
        #expect(buffer.count >= count)
        for index in 0..<kept { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ count) }
        return kept
      }
      #expect(bytes.count == kept, "count \(count), kept \(kept)")
      #expect(bytes == (0..<kept).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ count) })
    }
  }

  /// A body that claims more than there was room for keeps the room only.
  @Test func claimsAreBounded() {
    #expect([UInt8].written(count: 10) { _ in 11 }.count == 10)
    #expect([UInt8].written(count: 2000) { _ in -1 }.isEmpty)
  }
}
