import Foundation
import Testing

/// The README's fleet example, checked: pktbench's ndjson and csv of every
/// shipped capture load into DuckDB (Python's duckdb module) with
/// read_ndjson_auto and read_csv_auto, one type per key across each
/// codec's lines, and a query per codec that agrees with Python's count
/// (scripts/duckdb_check.py). Skipped, saying so, where duckdb is not
/// installed (scripts/bootstrap.sh --test-tools installs it).
@Suite struct DuckDBTests {
  static let hasDuckDB: Bool = {
    guard
      let result = try? Pktbench.runProgram("/usr/bin/env", ["python3", "-c", "import duckdb"], timeout: 60)
    else { return false }
    return result.status == 0
  }()

  static var captures: [String] {
    let root = Pktbench.root.path
    var found: [String] = []
    for directory in ["Captures", "Captures/ble", "Captures/damaged", "Captures/ble/damaged"] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(directory)")) ?? []
      for name in names.sorted()
      where name.hasSuffix(".pcap") || name.hasSuffix(".pcapng") || name.hasSuffix(".btsnoop") {
        found.append("\(directory)/\(name)")
      }
    }
    return found
  }

  @Test(.enabled(if: hasDuckDB, "python3's duckdb module is not installed: pip install duckdb"))
  func everyShippedCaptureLoadsWithOneTypePerKey() throws {
    let captures = Self.captures
    #expect(captures.count >= 10)
    // Rider's legacy `direction` is an enumeration (straight, left, right)
    // and its move variant's a number (-100…100): one name, two types in one
    // codec. Known, and reported to the codec's owner; any other clash fails.
    let result = try Pktbench.runProgram(
      "/usr/bin/env",
      ["python3", "scripts/duckdb_check.py", "--known", "rider.direction", Pktbench.binary.path] + captures,
      timeout: 600)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    for codec in ["rider", "legctrl", "rallie", "falconeye"] {
      #expect(
        result.text.contains("\n\(codec): ") || result.text.hasPrefix("\(codec): "), "\(codec) was loaded")
    }
  }
}
