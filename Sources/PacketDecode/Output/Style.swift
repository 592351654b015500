import Foundation

/// ANSI colour, only when writing to a terminal and NO_COLOR is unset.
public struct Style: Sendable {
  public var enabled: Bool

  public init(enabled: Bool) { self.enabled = enabled }

  public func warning(_ text: String) -> String { wrap(text, "33") }
  public func error(_ text: String) -> String { wrap(text, "31") }
  public func dim(_ text: String) -> String { wrap(text, "2") }
  public func bold(_ text: String) -> String { wrap(text, "1") }
  public func codec(_ text: String) -> String { wrap(text, "36") }

  private func wrap(_ text: String, _ code: String) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}

extension Style {
  /// Colour for what `out` writes: only to a terminal that shows it. Not
  /// when NO_COLOR is set (no-color.org: to anything but ""), nor when TERM
  /// is unset or "dumb" (Emacs shells, CI logs: the codes would show as
  /// text).
  package static func forOutput(_ out: OutputWriter) -> Style {
    Style(enabled: out.isTerminal && allowsColour(ProcessInfo.processInfo.environment))
  }

  package static func allowsColour(_ environment: [String: String]) -> Bool {
    if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
    guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
    return true
  }
}
