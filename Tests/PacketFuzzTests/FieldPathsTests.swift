import PacketFuzz
import Testing

@Suite struct FieldPathsTests {
  /// FNV-1a 64 test vectors (the FNV reference's "a" and "foobar"; the
  /// path's value from Python's arithmetic on its UTF-8).
  @Test func hashesAreFNV1a64() {
    #expect(FieldPaths.hash(FieldPaths.emptyPath, appending: "a") == 0xAF63_DC4C_8601_EC8C)
    #expect(FieldPaths.hash(FieldPaths.emptyPath, appending: "foobar") == 0x8594_4171_F739_67E8)
    #expect(
      FieldPaths.hash(FieldPaths.emptyPath, appending: "telemetry.header.msg_type") == 0x51E4_562E_FB24_F035)
  }

  /// The fuzzer hashes a path piece by piece, as the tree is walked: the
  /// same hash as the whole path's text, inline or not.
  @Test func aPathHashedPieceByPieceIsTheWholePath() {
    var path = FieldPaths.hash(FieldPaths.emptyPath, appending: "telemetry")
    path = FieldPaths.hash(path, appending: UInt8(ascii: "."))
    path = FieldPaths.hash(path, appending: "header")
    path = FieldPaths.hash(path, appending: UInt8(ascii: "."))
    path = FieldPaths.hash(path, appending: "msg_type")
    #expect(path == FieldPaths.hash(FieldPaths.emptyPath, appending: "telemetry.header.msg_type"))
    let long = String(repeating: "unexpected-payload.", count: 3)
    let halves = FieldPaths.hash(
      FieldPaths.hash(FieldPaths.emptyPath, appending: String(long.prefix(20))),
      appending: String(long.dropFirst(20)))
    #expect(halves == FieldPaths.hash(FieldPaths.emptyPath, appending: long))
  }

  @Test func countsEachPathOnceUpToTheLimit() {
    var paths = FieldPaths()
    let first = paths.insert("arm.header")
    let again = paths.insert("arm.header")
    let second = paths.insert("arm.header.version")
    let built = paths.insert(["arm", "header", "version"].joined(separator: "."))
    #expect(first && !again && second && !built)
    #expect(paths.count == 2)
    for index in 0..<(2 * FieldPaths.limit) { paths.insert("undecoded: \(index)") }
    #expect(paths.count == FieldPaths.limit)
    let beyond = paths.insert("one more")
    #expect(!beyond)
    #expect(paths.count == FieldPaths.limit)
  }
}
