import Foundation
import Testing

/// `--export-jpeg` against hostile frameIds (issue 34), from captures
/// written by Tests/Fixtures/capture/make_hostile_files.py: names are cut
/// by bytes between characters, controls and bidirectional overrides are
/// escaped, no file is ever overwritten (nor a planted link followed)
/// unless --overwrite, 20,000 frames of one name each get their own file,
/// and --max-files bounds the count and says so.
@Suite struct ExportJPEGHostileTests {
  static func export(_ kind: String, into directory: URL, _ extra: [String] = []) throws -> (
    Pktbench.Result, [String: Any]
  ) {
    let capture = try CaptureHostileTests.make("make_hostile_files.py", [kind])
    defer { try? FileManager.default.removeItem(atPath: capture.path) }
    let result = try Pktbench.run(
      ["decode", capture.path, "--export-jpeg", directory.path, "--stats"] + extra)
    return (result, capture.facts)
  }

  static func directory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-jpeg-\(UUID())")
  }

  static func files(_ directory: URL) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
  }

  /// `%XX` of each UTF-8 byte, as the names escape a character.
  static func escaped(_ text: String) -> String {
    text.utf8.map { String(format: "%%%02X", $0) }.joined()
  }

  @Test func hostileNamesAreCutEscapedAndKeptApart() throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (result, facts) = try Self.export("jpeg-names", into: directory)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("exported 6 JPEG files to \(directory.path)"), "\(result.stderr)")
    let ids = facts["ids"] as? [String] ?? []
    #expect(ids.count == 6)
    // 200 CJK characters are 600 bytes: cut to the 66 that fit in 200.
    let cjk = String(repeating: "漢", count: 66) + ".jpg"
    let expected: Set<String> = [
      cjk, "invoice" + Self.escaped("\u{202E}") + "gpj.exe.jpg",
      "bell" + Self.escaped("\u{85}\u{9B}") + "31m" + Self.escaped("\u{1B}") + "[31mred.jpg",
      "_._.._etc_passwd.jpg", "twice.jpg", "twice-2.jpg",
    ]
    let files = try Self.files(directory)
    #expect(files == expected, "\(files.map(\.debugDescription))")
    for file in files {
      #expect(file.utf8.count <= 255)
      #expect(!file.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
      #expect(!file.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) })
      let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
      #expect(bytes.prefix(2) == Data([0xFF, 0xD8]) && bytes.suffix(2) == Data([0xFF, 0xD9]))
    }
  }

  @Test func aSecondExportOverwritesNothingUnlessAsked() throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(try Self.export("jpeg-names", into: directory).0.status == 0)
    let first = try Self.files(directory)
    // A link planted where the next file would go is not followed.
    let victim = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-victim-\(UUID())")
    defer { try? FileManager.default.removeItem(at: victim) }
    try Data("victim".utf8).write(to: victim)
    try FileManager.default.createSymbolicLink(
      atPath: directory.appendingPathComponent("twice-3.jpg").path, withDestinationPath: victim.path)

    let (again, _) = try Self.export("jpeg-names", into: directory)
    #expect(again.status == 0, "\(again.stderr)")
    let second = try Self.files(directory)
    #expect(second.isSuperset(of: first))
    #expect(second.count == first.count * 2 + 1, "\(second.sorted())")
    #expect(second.contains("twice-4.jpg") && second.contains("twice-5.jpg"))
    #expect(try Data(contentsOf: victim) == Data("victim".utf8))
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(
        atPath: directory.appendingPathComponent("twice-3.jpg").path))
        == victim.path)

    let (replaced, _) = try Self.export("jpeg-names", into: directory, ["--overwrite"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(try Self.files(directory) == second, "--overwrite replaces the files of the same names")
    #expect(try Data(contentsOf: victim) == Data("victim".utf8))
  }

  @Test func twentyThousandFramesOfOneNameEachGetAFile() throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (result, facts) = try Self.export("jpeg-many", into: directory)
    let count = facts["count"] as? Int ?? 0
    #expect(count == 20_000)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("exported \(count) JPEG files"), "\(result.stderr)")
    let expected = Set(["a.jpg"] + (2...count).map { "a-\($0).jpg" })
    #expect(try Self.files(directory) == expected)
  }

  @Test func maxFilesBoundsTheExportAndSaysSo() throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (result, _) = try Self.export("jpeg-many", into: directory, ["--max-files", "50"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "pktbench: exported 50 JPEG files to \(directory.path); stopped at --max-files 50: 19950 more not written "
          + "(raise --max-files to write them)"), "\(result.stderr)")
    #expect(try Self.files(directory).count == 50)
  }
}
