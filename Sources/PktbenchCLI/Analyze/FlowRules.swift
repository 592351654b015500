import PacketKit

/// A protocol's rules for one flow: they see every record of the flow in
/// order, log findings and feed series on the flow, and add the facts only
/// they know to the report.
protocol FlowRules: AnyObject {
  func observe(_ message: FlowMessage, flow: FlowAnalyzer)
  /// The TCP connection under the flow ended (FIN, RST, end of capture).
  func connectionEnded(frame: Int, time: Double, reason: String, flow: FlowAnalyzer)
  /// The capture ended at `captureEnd` (Unix seconds of its last record).
  func finish(flow: FlowAnalyzer, captureEnd: Double)
  /// Protocol facts for the report: variants in use, handshake outcome...
  func facts() -> [FieldValue.Member]
  /// The same facts' lists as lines for the text report (exchanges...).
  func summaryLines() -> [String]
  /// Whether these rules report this decode failure themselves (so the
  /// generic decode-error rule stays quiet about it).
  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool
}

extension FlowRules {
  func connectionEnded(frame: Int, time: Double, reason: String, flow: FlowAnalyzer) {}
  func finish(flow: FlowAnalyzer, captureEnd: Double) {}
  func facts() -> [FieldValue.Member] { [] }
  func summaryLines() -> [String] { [] }
  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool { false }
}

/// What a protocol can tell about why a WebSocket was closed.
struct CloseCause {
  var text: String
  var frames: [Int] = []
  var details: [FieldValue.Member] = []
}

/// Rules that can explain a close code in their protocol's terms: they get
/// what the code alone says (`generic`) and return the cause to report.
protocol CloseExplaining: AnyObject {
  func explainClose(
    code: UInt16?, by closer: String, time: Double, generic: CloseCause, flow: FlowAnalyzer
  ) -> CloseCause
}

/// Settings of one analysis run.
struct AnalysisOptions {
  /// `--secret`: the shared secret FalconEye tokens are checked against.
  var secret: String?
}

/// Which rules a codec's messages get.
enum RuleCatalog {
  static func rules(forCodec codec: String, options: AnalysisOptions) -> FlowRules? {
    switch codec {
    case "rider": RiderRules()
    case "legctrl": LegCtrlRules()
    case "rallie": RallieRules()
    case "falconeye": FalconEyeRules(secret: options.secret)
    default: nil
    }
  }
}
