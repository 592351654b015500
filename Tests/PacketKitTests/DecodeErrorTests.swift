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
    let error = DecodeError(
      code: "bad-length", text: counter.word("frame is 3 bytes"), offset: 3,
      expected: counter.word("4 bytes"), found: counter.word("3 bytes"))
    #expect(error.code == "bad-length")
    #expect(error.offset == 3)
    #expect(counter.reads.withLock { $0 } == 0)
    #expect(error.text == "frame is 3 bytes")
    #expect(counter.reads.withLock { $0 } == 1)
    #expect(error.expected == "4 bytes")
    #expect(error.found == "3 bytes")
    #expect(counter.reads.withLock { $0 } == 3)
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
    var error = DecodeError(code: "bad-json", text: "inner text", offset: 7, found: "'x'")
    error.text = "payload at wire offset 40: \(error.text)"
    error.expected = "a value"
    #expect(error.text == "payload at wire offset 40: inner text")
    #expect(error.expected == "a value")
    #expect(error.found == "'x'")
  }

  @Test func equalityAndHashFollowTheWords() {
    let a = DecodeError(code: "bad-check", text: "check is 0x01", offset: 9, expected: "0x02")
    let same = DecodeError(code: "bad-check", text: "check is 0x01", offset: 9, expected: "0x02")
    let otherText = DecodeError(code: "bad-check", text: "check is 0x03", offset: 9, expected: "0x02")
    let otherExpected = DecodeError(code: "bad-check", text: "check is 0x01", offset: 9, expected: "0x04")
    #expect(a == same)
    #expect(a.hashValue == same.hashValue)
    #expect(a != otherText)
    #expect(a != otherExpected)
    #expect(Set([a, same, otherText]).count == 2)
  }

  @Test func descriptionAddsTheOffsetOnlyWhenTheTextLacksIt() {
    #expect(DecodeError(code: "x", text: "cut short", offset: 4).description == "cut short (at offset 4)")
    #expect(DecodeError(code: "x", text: "cut at offset 4", offset: 4).description == "cut at offset 4")
    #expect(DecodeError(code: "x", text: "no key", keyPath: "a.b").description == "no key")
  }
}
