/// Named values of an integer field (or, in JSON, of a text field). A
/// value without a name decodes as `unknown(n)` with a warning.
public struct SpecEnum: Sendable, Equatable {
  public struct Case: Sendable, Equatable {
    /// As the protocol writes it (`ARMED`, `start`).
    public var name: String
    public var value: Int64
    public var help: String?

    public init(name: String, value: Int64, help: String? = nil) {
      self.name = name
      self.value = value
      self.help = help
    }
  }

  /// The name fields refer to it by; for an enum written inline, the field's.
  public var name: String
  public var cases: [Case]

  public init(name: String, cases: [Case]) {
    self.name = name
    self.cases = cases
  }

  public func named(_ name: String) -> Case? {
    let lower = name.lowercased()
    return cases.first {
      $0.name == name || $0.name.lowercased() == lower
        || String($0.name.lowercased().map { $0 == "_" ? "-" : $0 }) == lower
    }
  }

  public func value(_ raw: Int64) -> Case? {
    cases.first { $0.value == raw }
  }
}
