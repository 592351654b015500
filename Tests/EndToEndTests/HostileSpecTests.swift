import Foundation
import Testing

/// A spec is untrusted input (one downloaded with a capture): what would
/// take unbounded time or memory — an alias bomb, a huge table, a size
/// that overflows, a zero-size element repeated, collections nested
/// deeper than the YAML reader should follow, a case that cannot fit its
/// field — is refused at load with one line and exit status 64, in under
/// a second and 100 MB (GNU time measures the debug binary); a spec that
/// loads cannot make a small frame cost more than a bounded decode.
@Suite struct HostileSpecTests {
  static func aliasBomb() -> String {
    var lines = [
      "meta: {id: bomb}", "types:", "  t0: &t0", "    seq: [{id: a, type: u1}, {id: b, type: u1}]",
    ]
    for level in 1..<10 {
      lines.append("  t\(level): &t\(level)")
      lines.append("    types: {" + (0..<10).map { "x\($0): *t\(level - 1)" }.joined(separator: ", ") + "}")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static let specs: [(name: String, text: String, says: String)] = [
    ("alias-bomb", aliasBomb(), "aliases that repeat aliases"),
    (
      "huge-enum", "meta: {id: t}\nenums:\n  big:\n" + (0..<70000).map { "    \($0): v\($0)\n" }.joined(),
      "refused"
    ),
    (
      "huge-type", "meta: {id: t}\nseq:\n" + (0..<5000).map { "  - {id: f\($0), type: u1}\n" }.joined(),
      "more than 4096 attributes"
    ),
    (
      "overflowing-size", "meta: {id: t}\nseq:\n  - {id: a, size: 0xffffffffffffffff}\n",
      "no size a frame can have"
    ),
    (
      "overflowing-count",
      "meta: {id: t}\nseq:\n  - {id: a, type: u1, repeat: expr, repeat-expr: 4294967296}\n",
      "no size a frame can have"
    ),
    (
      "zero-size-repeat", "meta: {id: t}\nseq:\n  - {id: a, type: empty, repeat: eos}\ntypes:\n  empty: {}\n",
      "would never end"
    ),
    (
      "deep-flow", "meta: {id: t}\ndoc: " + String(repeating: "[", count: 100_000) + "\n",
      "nested deeper than 64"
    ),
    (
      "deep-block",
      "meta: {id: t}\ndoc:\n"
        + (0..<1200).map { String(repeating: " ", count: $0 + 1) + "k\($0):\n" }.joined(),
      "nesting"
    ),
    (
      "deep-types",
      "meta: {id: t}\n"
        + (0..<40).map {
          String(repeating: "    ", count: $0) + "types:\n" + String(repeating: "    ", count: $0)
            + "  n\($0):\n"
        }.joined() + String(repeating: "    ", count: 40) + "doc: end\n",
      "nested more than 32 deep"
    ),
    (
      "case-too-wide",
      "meta: {id: t}\nseq:\n  - {id: k, type: u1}\n  - id: b\n    type:\n      switch-on: k\n      cases:\n        300: x\ntypes:\n  x: {}\n",
      "does not fit the 8-bit field"
    ),
    (
      "long-expression",
      "meta: {id: t}\nseq:\n  - {id: a, type: u1}\n  - {id: b, size: '" + String(repeating: "(", count: 2000)
        + "a" + String(repeating: ")", count: 2000) + "'}\n",
      "nested deeper than"
    ),
  ]

  @Test(arguments: specs.indices)
  func refusedQuicklyInOneLine(index: Int) throws {
    let (name, text, says) = Self.specs[index]
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("\(name).ksy")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let time = try #require(
      Pktbench.which("time")
        ?? (FileManager.default.fileExists(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil))
    let result = try Pktbench.runProgram(
      time, ["-f", "%e %M", Pktbench.binary.path, "codecs", "--spec", file.path])
    #expect(result.status == 64, "\(name): \(result.stderr)")
    var lines = result.stderr.split(separator: "\n").map(String.init)
    let measured = lines.removeLast().split(separator: " ")
    lines.removeAll { $0.hasPrefix("Command exited") }
    #expect(lines.count == 1, "\(name): \(lines)")
    #expect(lines.first?.hasPrefix("pktbench: \(file.path)") == true, "\(name): \(lines)")
    #expect(lines.first?.contains(says) == true, "\(name): \(lines)")
    let seconds = Double(measured.first ?? "") ?? 99
    let kilobytes = Double(measured.last ?? "") ?? 1e9
    #expect(seconds < 1, "\(name) took \(seconds) s")
    #expect(kilobytes < 100_000, "\(name) used \(kilobytes) KB")
  }

  /// Specs that load but would recurse or repeat without end on a frame:
  /// each frame's decode is bounded (depth, work) and says so.
  @Test(arguments: [
    ("meta: {id: r}\nseq:\n  - {id: next, type: r}\n", "00", "too-deep"),
    (
      "meta: {id: r}\nseq:\n  - {id: items, type: empty, repeat: expr, repeat-expr: 2147483647}\ntypes:\n  empty: {}\n",
      "00", "too-complex"
    ),
    (
      "meta: {id: r}\nseq:\n  - {id: a, type: u1}\ninstances:\n  loop: {pos: 0, type: r}\n", "00",
      "too-complex"
    ),
    (
      "meta: {id: r}\nseq:\n  - {id: n, type: u1, repeat: expr, repeat-expr: 2147483647}\n", "00", "truncated"
    ),
  ])
  func framesStayBounded(spec: String, hex: String, code: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("bounded-\(abs(spec.hashValue)).ksy")
    try spec.write(to: file, atomically: true, encoding: .utf8)
    let result = try Pktbench.run([
      "decode", "--spec", file.path, "--codec", "r", "--hex", hex, "--format", "ndjson",
    ])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.text.contains("\"code\":\"\(code)\""), "\(result.text)")
  }
}
