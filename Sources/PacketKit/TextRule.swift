/// What a text field must hold for the receiver to accept it, as the
/// protocol states it: `craft` and `pktbench codecs` show it, and the
/// fuzzer's generator makes values that follow it. The codec itself
/// enforces the rule (it refuses to craft, and warns on decode).
public struct TextRule: Sendable, Equatable {
  public enum Alphabet: Sendable, Equatable {
    /// Standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, padded with `=`).
    case base64
  }

  public var alphabet: Alphabet
  /// How many characters the text may have.
  public var characters: ClosedRange<Int>

  public init(_ alphabet: Alphabet, characters: ClosedRange<Int>) {
    self.alphabet = alphabet
    self.characters = characters
  }

  /// `characters` of base64 text.
  public static func base64(characters: ClosedRange<Int>) -> TextRule {
    TextRule(.base64, characters: characters)
  }

  /// "16…256 characters of base64", for help and errors.
  public var description: String {
    switch alphabet {
    case .base64: "\(characters.lowerBound)…\(characters.upperBound) characters of base64"
    }
  }
}
