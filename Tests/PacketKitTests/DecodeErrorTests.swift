import Synchronization
import Testing

@testable import PacketKit

/// A DecodeError's words are written when read, from values copied when it
/// was thrown: nothing before, and the same words whatever happened since.
@Suite struct DecodeErrorTests {
  final class Counter: Sendable {
    let reads = Mutex(0)
    func word(_ text: String) -> String {
      reads.withLock { $0 += 1 }
      return text
    }
  }

  @Test func wordsAreWrittenOnlyWhenRead() {
    let counter = Counter()
    let error = DecodeError(code: "bad-length", offset: 3) {
      .init(
        counter.word("frame is 3 bytes"), expected: counter.word("4 bytes"), found: counter.word("3 bytes"))
    }
    #expect(error.code == "bad-length")
    #expect(error.offset == 3)
    let copy = error
    #expect(copy.code == "bad-length")
    #expect(counter.reads.withLock { $0 } == 0)
    // One closure writes all three words at once.
    let words = error.words
    #expect(counter.reads.withLock { $0 } == 3)
    #expect(words.text == "frame is 3 bytes")
    #expect(words.expected == "4 bytes")
    #expect(words.found == "3 bytes")
    #expect(error.text == "frame is 3 bytes")
    #expect(counter.reads.withLock { $0 } == 6)
  }

  /// A closure that captures nothing is the common refusal (a fixed
  /// sentence); the error still says it, and compares by it.
  @Test func wordsWithoutCapturesAreTheSameWords() {
    let a = DecodeError(code: "truncated", offset: 0) { .init("frame has no check byte") }
    #expect(a.text == "frame has no check byte")
    #expect(a.expected == nil)
    #expect(a.found == nil)
    #expect(a == DecodeError(code: "truncated", offset: 0) { .init("frame has no check byte") })
    #expect(a != DecodeError(code: "truncated", offset: 1) { .init("frame has no check byte") })
  }

  @Test func wordsOutliveTheInputBuffer() throws {
    var bytes: [UInt8]? = [0x01, 0x02]
    let error = bytes!.withUnsafeBytes { buffer -> DecodeError? in
      var reader = ByteReader(buffer)
      _ = try? reader.readUInt8("version")
      do throws(DecodeError) {
        _ = try reader.readUInt32LE("sequence")
        return nil
      } catch {
        return error
      }
    }
    bytes = nil
    let refused = try #require(error)
    #expect(refused.code == "truncated")
    #expect(refused.offset == 1)
    #expect(refused.text == "sequence needs 4 bytes at offset 1, but only 1 remain")
    #expect(refused.expected == "4 bytes")
    #expect(refused.found == "1 byte")
  }

  @Test func settingWordsReplacesThem() {
    var error = DecodeError(code: "bad-json", offset: 7) { .init("inner text", found: "'x'") }
    error.text = "payload at wire offset 40: \(error.text)"
    error.expected = "a value"
    #expect(error.text == "payload at wire offset 40: inner text")
    #expect(error.expected == "a value")
    #expect(error.found == "'x'")
  }

  @Test func equalityAndHashFollowTheWords() {
    let a = DecodeError(code: "bad-check", offset: 9) { .init("check is 0x01", expected: "0x02") }
    let same = DecodeError(code: "bad-check", offset: 9) { .init("check is 0x01", expected: "0x02") }
    let otherText = DecodeError(code: "bad-check", offset: 9) { .init("check is 0x03", expected: "0x02") }
    let otherExpected = DecodeError(code: "bad-check", offset: 9) { .init("check is 0x01", expected: "0x04") }
    #expect(a == same)
    #expect(a.hashValue == same.hashValue)
    #expect(a != otherText)
    #expect(a != otherExpected)
    #expect(Set([a, same, otherText]).count == 2)
  }

  @Test func descriptionAddsTheOffsetOnlyWhenTheTextLacksIt() {
    #expect(DecodeError(code: "x", offset: 4) { .init("cut short") }.description == "cut short (at offset 4)")
    #expect(DecodeError(code: "x", offset: 4) { .init("cut at offset 4") }.description == "cut at offset 4")
    #expect(DecodeError(code: "x", keyPath: "a.b") { .init("no key") }.description == "no key")
  }
}
