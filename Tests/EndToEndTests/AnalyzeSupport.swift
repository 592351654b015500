import Foundation
import Testing

/// Runs `pktbench analyze --format json` and reads the report.
enum Analyze {
  struct Report {
    var json: [String: Any]
    var status: Int32
    var stderr: String

    var findings: [[String: Any]] { json["findings"] as? [[String: Any]] ?? [] }
    var flows: [[String: Any]] { json["flows"] as? [[String: Any]] ?? [] }
    var devices: [[String: Any]] { json["devices"] as? [[String: Any]] ?? [] }

    /// The facts of the device `flow` reached (its model's rules read the
    /// device's whole story), else the flow's own.
    func facts(of flow: [String: Any]) -> [String: Any]? {
      if let id = flow["device_id"] as? Int, let device = devices.first(where: { $0["id"] as? Int == id }) {
        let facts = device["facts"] as? [String: Any] ?? [:]
        if !facts.isEmpty { return facts }
      }
      return flow["facts"] as? [String: Any]
    }

    func findings(_ rule: String) -> [[String: Any]] { findings.filter { $0["rule"] as? String == rule } }

    /// Errors and warnings (what `--fail-on warning` would fail on).
    var serious: [[String: Any]] {
      findings.filter { ["error", "warning"].contains($0["severity"] as? String ?? "") }
    }

    func flow(withFact key: String, equal value: String) -> [String: Any]? {
      flows.first { ($0["facts"] as? [String: Any])?[key] as? String == value }
    }

    func findings(inFlow flow: [String: Any]) -> [[String: Any]] {
      findings.filter { $0["flow_id"] as? Int == flow["id"] as? Int }
    }
  }

  static func run(_ capture: String, _ extra: [String] = []) throws -> Report {
    let result = try Pktbench.run(["analyze", capture, "--format", "json"] + extra)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout))
    let json = try #require(object as? [String: Any], "\(capture): \(result.stderr)")
    return Report(json: json, status: result.status, stderr: result.stderr)
  }

  static func fixture(_ path: String) throws -> [String: Any] {
    let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : Pktbench.root.appendingPathComponent(path)
    let data = try Data(contentsOf: url)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  static func details(_ finding: [String: Any]) -> [String: Any] {
    finding["details"] as? [String: Any] ?? [:]
  }

  static let realCapture = "/work/shared/real-captures/aerie-real-session.pcap"
  static let realExpected = "/work/shared/real-captures/aerie-real-session.expected.json"

  static var hasRealCapture: Bool { FileManager.default.fileExists(atPath: realCapture) }
}
