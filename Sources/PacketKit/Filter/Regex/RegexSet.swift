/// A character class (`[a-z]`, `\d`, `[^[:space:]]`, `\p{Lu}`): ranges of
/// scalars and Unicode categories, with the ASCII half decided ahead in a
/// bitmap, so the common test is two shifts.
struct RegexSet: Sendable {
  indirect enum Item: Sendable {
    case range(UInt32, UInt32)
    case category([Unicode.GeneralCategory])
    /// Anything the items do not hold (`\D`, `[:^alpha:]`, `\P{L}`).
    case inverted([Item])
  }

  private(set) var items: [Item] = []
  var negated = false
  var caseless = false
  /// Membership of the scalars 0…127, case and negation applied.
  private(set) var low: UInt64 = 0
  private(set) var high: UInt64 = 0

  mutating func add(_ item: Item) { items.append(item) }
  mutating func add(_ more: [Item]) { items += more }

  /// Decides the ASCII bitmap; call once the items are all in.
  mutating func seal() {
    low = 0
    high = 0
    for value in 0..<128 {
      if slowContains(Unicode.Scalar(UInt8(value))) {
        if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
      }
    }
  }

  @inline(__always)
  func contains(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 64 { return low & (1 << UInt64(value)) != 0 }
    if value < 128 { return high & (1 << UInt64(value - 64)) != 0 }
    return slowContains(scalar)
  }

  private func slowContains(_ scalar: Unicode.Scalar) -> Bool {
    var found = Self.holds(items, scalar)
    if !found, caseless {
      // Case does not bend a Unicode property: \p{Lu} is upper case only (PCRE2).
      found = RegexCase.variants(of: scalar).contains {
        $0 != scalar && Self.holds(items, $0, categories: false)
      }
    }
    return found != negated
  }

  private static func holds(_ items: [Item], _ scalar: Unicode.Scalar, categories: Bool = true) -> Bool {
    items.contains { item in
      switch item {
      case .range(let low, let high): return (low...high).contains(scalar.value)
      case .category(let kinds): return categories && kinds.contains(scalar.properties.generalCategory)
      case .inverted(let inner): return categories && !holds(inner, scalar)
      }
    }
  }

  // MARK: The named classes

  static let digit: [Item] = [.range(0x30, 0x39)]
  static let word: [Item] = [.range(0x30, 0x39), .range(0x41, 0x5A), .range(0x5F, 0x5F), .range(0x61, 0x7A)]
  /// PCRE2's `\s`: space, \t, \n, \v, \f, \r.
  static let space: [Item] = [.range(0x09, 0x0D), .range(0x20, 0x20)]
  static let horizontalSpace: [Item] = [
    .range(0x09, 0x09), .range(0x20, 0x20), .range(0xA0, 0xA0), .range(0x1680, 0x1680),
    .range(0x180E, 0x180E),
    .range(0x2000, 0x200A), .range(0x202F, 0x202F), .range(0x205F, 0x205F), .range(0x3000, 0x3000),
  ]
  static let verticalSpace: [Item] = [
    .range(0x0A, 0x0D), .range(0x85, 0x85), .range(0x2028, 0x2029),
  ]

  /// `[:name:]` inside a class (ASCII, as PCRE2 without UCP).
  static func posix(_ name: String) -> [Item]? {
    switch name {
    case "alpha": return [.range(0x41, 0x5A), .range(0x61, 0x7A)]
    case "digit": return digit
    case "alnum": return [.range(0x30, 0x39), .range(0x41, 0x5A), .range(0x61, 0x7A)]
    case "upper": return [.range(0x41, 0x5A)]
    case "lower": return [.range(0x61, 0x7A)]
    case "space": return space
    case "blank": return [.range(0x09, 0x09), .range(0x20, 0x20)]
    case "punct":
      return [.range(0x21, 0x2F), .range(0x3A, 0x40), .range(0x5B, 0x60), .range(0x7B, 0x7E)]
    case "print": return [.range(0x20, 0x7E)]
    case "graph": return [.range(0x21, 0x7E)]
    case "cntrl": return [.range(0x00, 0x1F), .range(0x7F, 0x7F)]
    case "xdigit": return [.range(0x30, 0x39), .range(0x41, 0x46), .range(0x61, 0x66)]
    case "word": return word
    case "ascii": return [.range(0x00, 0x7F)]
    default: return nil
    }
  }

  /// `\p{…}`: a general category by its one- or two-letter name (`L`,
  /// `Lu`, `Nd`), or `Any`.
  static func property(_ name: String) -> [Item]? {
    if name == "Any" { return [.range(0, 0x10FFFF)] }
    let all: [(String, Unicode.GeneralCategory)] = [
      ("Lu", .uppercaseLetter), ("Ll", .lowercaseLetter), ("Lt", .titlecaseLetter),
      ("Lm", .modifierLetter), ("Lo", .otherLetter), ("Mn", .nonspacingMark), ("Mc", .spacingMark),
      ("Me", .enclosingMark), ("Nd", .decimalNumber), ("Nl", .letterNumber), ("No", .otherNumber),
      ("Pc", .connectorPunctuation), ("Pd", .dashPunctuation), ("Ps", .openPunctuation),
      ("Pe", .closePunctuation), ("Pi", .initialPunctuation), ("Pf", .finalPunctuation),
      ("Po", .otherPunctuation), ("Sm", .mathSymbol), ("Sc", .currencySymbol), ("Sk", .modifierSymbol),
      ("So", .otherSymbol), ("Zs", .spaceSeparator), ("Zl", .lineSeparator), ("Zp", .paragraphSeparator),
      ("Cc", .control), ("Cf", .format), ("Cs", .surrogate), ("Co", .privateUse), ("Cn", .unassigned),
    ]
    let matching = all.filter { name.count == 1 ? $0.0.hasPrefix(name) : $0.0 == name }.map(\.1)
    return matching.isEmpty ? nil : [.category(matching)]
  }
}

/// Case-insensitive matching, as PCRE2 does it: a scalar matches its
/// simple lower, upper and title case forms.
enum RegexCase {
  /// The scalar and its single-scalar case forms (ASCII without allocating twice).
  static func variants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
    let value = scalar.value
    if value < 128 {
      if (0x41...0x5A).contains(value) { return [scalar, Unicode.Scalar(UInt8(value + 32))] }
      if (0x61...0x7A).contains(value) { return [scalar, Unicode.Scalar(UInt8(value - 32))] }
      return [scalar]
    }
    var forms = [scalar]
    let properties = scalar.properties
    for mapping in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping] {
      let scalars = mapping.unicodeScalars
      if scalars.count == 1, let form = scalars.first, !forms.contains(form) { forms.append(form) }
    }
    return forms
  }
}
