/// A protocol's rules for one flow: they see every record of the flow in
/// order, and what the flow's device model made of them, log findings and
/// feed series on the flow, and add the facts only they know to the report.
/// A plugin brings them through `AnalysisRules`.
public protocol FlowRules: AnyObject {
  func observe(_ message: FlowMessage, flow: any FlowContext)
  /// What the flow's device model did, in the order it did it (a message
  /// taken, a timer firing), after the message that caused it was observed.
  func modelled(_ event: DeviceEvent, flow: any FlowContext)
  /// The TCP connection under the flow ended (FIN, RST, end of capture).
  func connectionEnded(frame: Int, time: Double, reason: String, flow: any FlowContext)
  /// The capture ended at `captureEnd`: its recorded end when the file says
  /// (`flow.captureEndRecorded`), else the time of its last record.
  func finish(flow: any FlowContext, captureEnd: Double)
  /// Protocol facts for the report: variants in use, handshake outcome...
  func facts() -> [FieldValue.Member]
  /// The same facts' lists as lines for the text report (exchanges...).
  func summaryLines() -> [String]
  /// Whether these rules report this decode failure themselves (so the
  /// generic decode-error rule stays quiet about it).
  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool
}

extension FlowRules {
  public func modelled(_ event: DeviceEvent, flow: any FlowContext) {}
  public func connectionEnded(frame: Int, time: Double, reason: String, flow: any FlowContext) {}
  public func finish(flow: any FlowContext, captureEnd: Double) {}
  public func facts() -> [FieldValue.Member] { [] }
  public func summaryLines() -> [String] { [] }
  public func claims(_ error: DecodeError, in message: FlowMessage) -> Bool { false }
}

/// What rules may do with the flow (or device) they watch: report
/// findings, count message series against their expected rate, measure
/// latencies and sizes, and name the two ends. For device rules, the
/// client is the one whose record (or event) is being read.
public protocol FlowContext: AnyObject {
  /// The flow's (or device's) number in the report.
  var id: Int { get }
  /// Where relative times count from (`Format.offset`): the capture's first record.
  var origin: Double { get }
  /// The endpoint that starts the conversation (the app, the WebSocket client).
  var client: String? { get }
  /// The endpoint that answers (the device, the WebSocket server).
  var server: String? { get }
  /// The WebSocket upgrade request, when the capture holds it.
  var handshake: (frame: Int?, time: Double)? { get }
  /// Whether the capture file recorded when it ended (a pcapng Interface
  /// Statistics Block's `isb_endtime`); otherwise its last record is all
  /// that is known, and the traffic may have gone on unseen.
  var captureEndRecorded: Bool { get }

  func report(_ finding: Finding)
  /// Counts one message of the series `name` (made on first use); returns
  /// the gap since the series' previous message.
  @discardableResult
  func count(_ name: String, direction: String?, expected: ExpectedRate?, frame: Int?, time: Double) -> Gap?
  /// Adds one value to the distribution `name` (made on first use).
  func measure(_ name: String, text: String, unit: MeasureUnit, _ value: Double)
  /// The median of the distribution `name` so far.
  func median(of name: String) -> Double?
  /// Who is who, as the first rule that knows says it.
  func setRoles(client: String?, server: String?, clientRole: String, serverRole: String)
  /// The protocol name of an endpoint ("app", "robot"), or the endpoint.
  func role(of endpoint: String?) -> String
}

extension FlowContext {
  /// `count` for a series with no expected rate.
  @discardableResult
  public func count(_ name: String, direction: String?, frame: Int?, time: Double) -> Gap? {
    count(name, direction: direction, expected: nil, frame: frame, time: time)
  }

  public func measure(_ name: String, text: String, _ value: Double) {
    measure(name, text: text, unit: .seconds, value)
  }
}

/// The unit of a measured distribution.
public enum MeasureUnit: String, Sendable {
  case seconds, bytes
}

/// What a protocol can tell about why a WebSocket was closed.
public struct CloseCause: Sendable {
  public var text: String
  public var frames: [Int] = []
  public var details: [FieldValue.Member] = []

  public init(text: String, frames: [Int] = [], details: [FieldValue.Member] = []) {
    self.text = text
    self.frames = frames
    self.details = details
  }
}

/// Rules that can explain a close code in their protocol's terms: they get
/// what the code alone says (`generic`) and return the cause to report.
public protocol CloseExplaining: AnyObject {
  func explainClose(
    code: UInt16?, by closer: String, time: Double, generic: CloseCause, flow: any FlowContext
  ) -> CloseCause
}

/// Settings of one analysis run, as `analyze` was given them.
public struct AnalysisOptions: Sendable {
  /// `--secret`: a shared secret the protocol's tokens are checked against.
  public var secret: String?
  /// `--model CODEC.SETTING=VALUE`: settings for each codec's device model.
  public var modelSettings: [String: ModelSettings]

  public init(secret: String? = nil, modelSettings: [String: ModelSettings] = [:]) {
    self.secret = secret
    self.modelSettings = modelSettings
  }
}

/// A codec that brings rules of its own for `analyze`.
public protocol AnalysisRules {
  func makeRules(options: AnalysisOptions) -> [any FlowRules]
  /// What one set of the rules reads: a device's whole story (every
  /// client's records, in capture order, and all its model's events), or
  /// one connection's conversation (its records, and the model's events
  /// about it).
  var rulesScope: RulesScope { get }
}

extension AnalysisRules {
  public var rulesScope: RulesScope { .device }
}

/// What one set of a protocol's rules reads.
public enum RulesScope: Sendable {
  /// The device: every client, one story. Series and measurements still
  /// count per client (`FlowContext` sends them to the client whose record
  /// is being read); findings are the device's.
  case device
  /// Each connection to the device: the protocol's conversation is per
  /// connection (a server session with its own auth race and replies).
  case connection
}
