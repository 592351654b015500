/// Why a spec file could not be loaded: the file, the line, the key and
/// what was wrong, in one line
/// (`Specs/x.yaml:12: key 'width': expected 8, 16, 24, 32 or 64, found 12`).
public struct SpecLoadError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  /// 1-based; nil when the file as a whole is at fault (it cannot be read).
  public var line: Int?
  /// The key at fault, when one is.
  public var key: String?
  public var text: String

  public init(file: String, line: Int?, key: String?, text: String) {
    self.file = file
    self.line = line
    self.key = key
    self.text = text
  }

  public var description: String {
    let place = line.map { "\(file):\($0)" } ?? file
    guard let key else { return "\(place): \(text)" }
    return "\(place): key '\(key)': \(text)"
  }
}
