import PacketKit

/// Display filters made from tshark's grammar, for the filter fuzz target
/// to start mutating from: connectives, parentheses, every operator, every
/// literal form (numbers in each base, strings with escapes, raw strings,
/// sets and ranges) and regular expressions with groups, classes,
/// quantifiers, look-arounds and back-references.
enum FilterGrammar {
  static let fields = [
    "frame", "src", "rider.left", "legctrl.state", "legctrl.header.msg_type", "falconeye.payload.frameId",
    "falconeye.payload.poses.joints.type", "ws.close.code", "error", "error.code", "diagnostics.severity",
  ]
  static let comparisons = ["==", "!=", "===", "!==", "<", "<=", ">", ">=", "eq", "ne", "lt", "ge"]
  static let literals = [
    "90", "-37.5", "1e3", "0x10", "0b101", "017", ".5", "\"FAULT\"", "\"a\\\"b\\\\c\\x41\\101\\u00e9\"",
    "r\"a\\d\"", "true", "False", "\"\"",
  ]
  static let patterns = [
    "^(a+)+$", "^f-00[0-4]", "(?-i)^Hel", "\\d{2,3}\\.\\d*", "(?<id>ab)\\k<id>", "(a|ab)(c|bcd)(d*)",
    "(?=a)a(?!b)", "(?<=x)y", "[[:alpha:]_-]+", "\\p{Lu}\\P{L}", "a{2,}?b++", "(?s).*\\z", "(?>a*)a",
    "\\Qa.b\\E", "(?x) a b # c", "\\x{263A}|\\u00e9", "[^\\]\\\\]", "(?m)^b$", "((((a))))*", "\\bword\\B",
  ]

  static func expression(into text: inout String, depth: Int, rng: inout SplitMix64) {
    let choice = depth > 3 ? rng.below(3) : rng.below(7)
    switch choice {
    case 0, 1, 2: test(into: &text, rng: &rng)
    case 3:
      text += rng.chance(1, in: 2) ? "not " : "!"
      expression(into: &text, depth: depth + 1, rng: &rng)
    case 4:
      text += "("
      expression(into: &text, depth: depth + 1, rng: &rng)
      text += ")"
    default:
      expression(into: &text, depth: depth + 1, rng: &rng)
      text += [" and ", " && ", " or ", " || "][rng.below(4)]
      expression(into: &text, depth: depth + 1, rng: &rng)
    }
  }

  private static func test(into text: inout String, rng: inout SplitMix64) {
    let field = fields[rng.below(fields.count)]
    switch rng.below(6) {
    case 0: text += field
    case 1:
      text += "\(field) \(comparisons[rng.below(comparisons.count)]) \(literals[rng.below(literals.count)])"
    case 2: text += "\(field) contains \(literals[rng.below(literals.count)])"
    case 3:
      let pattern = patterns[rng.below(patterns.count)].replacingEscapes()
      text += "\(field) \(rng.chance(1, in: 2) ? "matches" : "~") \"\(pattern)\""
    case 4: text += "\(field) in {1, 5..9, \"a\" 0x10}"
    default: text += "\(literals[rng.below(literals.count)]) < \(field)"
    }
  }
}

extension String {
  /// The pattern as a filter's double-quoted string writes it (`\` and `"` escaped).
  fileprivate func replacingEscapes() -> String {
    var out = ""
    for character in self {
      if character == "\\" || character == "\"" { out.append("\\") }
      out.append(character)
    }
    return out
  }
}
