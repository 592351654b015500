import Foundation
import Testing

/// pktbench's core can be taken as a versioned dependency: a local git
/// repository with a tag stands in for the server. A package of its own
/// depends on `PacketKit` from tag 1.0.0, writes a codec against it, and
/// runs it. (SwiftPM refuses `unsafeFlags` in such a dependency, so this
/// also holds the manifest to that.)
@Suite(.serialized) struct VersionedDependencyTests {
  static var gitRepository: Bool {
    FileManager.default.fileExists(atPath: Pktbench.root.appendingPathComponent(".git").path)
  }

  @Test(.enabled(if: gitRepository, "needs the repository's own git history"))
  func theCoreResolvesFromATaggedRepository() throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-dep-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: work) }
    let server = work.appendingPathComponent("pktbench")
    let consumer = work.appendingPathComponent("consumer")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let git = try #require(Pktbench.which("git"))
    let swift = try #require(Pktbench.which("swift"))
    func run(_ program: String, _ arguments: [String], in directory: URL? = nil) throws -> Pktbench.Result {
      let result = try Pktbench.runProgram(
        program, (directory.map { ["-C", $0.path] } ?? []) + arguments, timeout: 900)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      return result
    }
    // The committed tree, as a release would be tagged.
    _ = try run(git, ["clone", "--quiet", "--no-hardlinks", Pktbench.root.path, server.path])
    _ = try run(git, ["-c", "user.name=t", "-c", "user.email=t@t", "tag", "1.0.0"], in: server)

    try FileManager.default.createDirectory(
      at: consumer.appendingPathComponent("Sources/Consumer"), withIntermediateDirectories: true)
    try """
    // swift-tools-version:6.0
    import PackageDescription
    let package = Package(
      name: "Consumer",
      platforms: [.macOS(.v13)],
      dependencies: [.package(url: "\(server.absoluteString)", from: "1.0.0")],
      targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "PacketKit", package: "pktbench")])
      ]
    )
    """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try """
    import PacketKit

    /// One byte, one field: the smallest codec there is.
    struct Level: FrameCodec {
      var info: CodecInfo {
        CodecInfo(
          name: "level", title: "a level", transport: "test",
          messages: [
            MessageSchema(
              "level", summary: "a level", direction: .either,
              fields: [FieldSchema("percent", kind: .integer, unit: "%", range: 0...100, help: "the level")])
          ])
      }
      func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<UInt8> {
        guard bytes.count == 1 else {
          throw DecodeError(code: "bad-length", offset: 0, text: "a level is one byte")
        }
        return Decoded(
          message: bytes[0], messageName: "level",
          fields: [DissectionNode("percent", .unsigned(UInt64(bytes[0])), unit: "%", range: 0..<1)])
      }
      func encode(_ message: UInt8) throws(EncodeError) -> [UInt8] { [message] }
      func probe(_ bytes: ByteView) -> Int { bytes.count == 1 ? 10 : 0 }
      func message(_ kind: String, from values: CraftValues) throws(EncodeError) -> UInt8 {
        UInt8(clamping: try values.integer("percent"))
      }
      func kind(of message: UInt8) -> String { "level" }
    }

    let decoded = try Level().decode([42])
    let field = decoded.fields[0]
    print("\\(decoded.messageName) \\(field.name)=\\(field.value.display)\\(field.unit.map { " \\($0)" } ?? "")")
    do {
      _ = try Level().decode([1, 2])
    } catch {
      print("error \\(error.code) at \\(error.offset ?? -1)")
    }
    print(try Level().craft("level", values: CraftValues(["percent": .integer(7)])))
    """.write(to: consumer.appendingPathComponent("Sources/Consumer/main.swift"), atomically: true, encoding: .utf8)

    _ = try run(swift, ["build", "--package-path", consumer.path, "--product", "Consumer"])
    let output = try run(consumer.appendingPathComponent(".build/debug/Consumer").path, [])
    #expect(output.text == "level percent=42 %\nerror bad-length at 0\n[7]\n")
  }
}
