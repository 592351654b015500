import Foundation
import PacketKit
import Testing

@testable import PacketDecode

#if canImport(Glibc)
  import Glibc
#endif

/// `decode --jobs`: a file decoded ahead of its turn is held in an unlinked
/// temporary file; when its turn comes, what was held goes out first and
/// every later write goes straight to the output.
@Suite struct OutputSpoolTests {
  /// A fresh directory, and a file in another one standing for stdout.
  final class Place {
    let directory: String
    let outputPath: String
    let output: Int32

    init() throws {
      var template = Array((NSTemporaryDirectory() + "/spool-test-XXXXXX").utf8CString)
      guard mkdtemp(&template) != nil else {
        throw CocoaError(.fileWriteUnknown)
      }
      directory = String(cString: template)
      outputPath =
        NSTemporaryDirectory() + "/spool-test-output-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      output = open(outputPath, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    }

    var written: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: outputPath)))) ?? [] }
    var filesInDirectory: [String] {
      (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? ["?"]
    }

    deinit {
      close(output)
      unlink(outputPath)
      rmdir(directory)
    }
  }

  private func write(_ spool: OutputSpool, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { spool.write($0) }
  }

  @Test func holdsBytesUntilItsTurnThenWritesStraightThrough() throws {
    let place = try Place()
    let spool = try #require(OutputSpool(output: place.output, directory: place.directory))
    // The temporary file is unlinked at once: nothing to leave behind.
    #expect(place.filesInDirectory.isEmpty)
    write(spool, Array("first ".utf8))
    write(spool, Array("second ".utf8))
    #expect(place.written.isEmpty)
    #expect(!spool.isDirect)
    spool.takeTurn()
    #expect(spool.isDirect)
    #expect(place.written == Array("first second ".utf8))
    write(spool, Array("third".utf8))
    #expect(place.written == Array("first second third".utf8))
  }

  @Test func copiesALargeSpoolWhole() throws {
    let place = try Place()
    let spool = try #require(OutputSpool(output: place.output, directory: place.directory))
    var random = SplitMix64(seed: 0x5b001)
    var expected: [UInt8] = []
    // 3 MiB and a bit, in chunks of odd sizes: more than one sendfile may move.
    while expected.count < 3 << 20 {
      let chunk = (0..<(1 + random.below(70_000))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      write(spool, chunk)
      expected += chunk
    }
    spool.takeTurn()
    #expect(place.written.count == expected.count)
    #expect(place.written == expected)
  }

  @Test func aSpoolWithNothingHeldTakesItsTurnAtOnce() throws {
    let place = try Place()
    let spool = try #require(OutputSpool(output: place.output, directory: place.directory))
    spool.takeTurn()
    spool.takeTurn()
    write(spool, [1, 2, 3])
    #expect(place.written == [1, 2, 3])
  }

  @Test func aWriterOnASpoolFlushesIntoIt() throws {
    let place = try Place()
    let spool = try #require(OutputSpool(output: place.output, directory: place.directory))
    let writer = OutputWriter(spool: spool, isTerminal: false)
    writer.line("held")
    writer.flush()
    #expect(place.written.isEmpty)
    spool.takeTurn()
    writer.line("straight")
    #expect(place.written == Array("held\n".utf8))
    writer.flush()
    #expect(place.written == Array("held\nstraight\n".utf8))
  }

  @Test func aDirectoryWithoutRoomForATemporaryFileGivesNoSpool() {
    #expect(OutputSpool(output: 1, directory: "/nonexistent-directory-for-spools") == nil)
  }
}
