/// One token of a display filter, with the column it starts at.
struct FilterToken: Sendable, Equatable {
  enum Kind: Sendable, Equatable {
    /// A field or protocol name: `rider.left`, `ws.close`, `frame`.
    case name(String)
    /// A double-quoted (or raw `r"…"`) string, escapes resolved.
    case string([UInt8])
    case number(FilterNumber)
    case boolean(Bool)
    case comparison(FilterComparison)
    case contains
    case matches
    case `in`
    case and
    case or
    case not
    case openParen
    case closeParen
    case openBrace
    case closeBrace
    case comma
    /// `..` between the ends of a range in a set.
    case range
    case end
  }

  var kind: Kind
  var column: Int
  /// The token as written, for messages.
  var text: String
}

/// A number as written in a filter: an integer when it is one (decimal,
/// hex, octal or binary), else a double.
public enum FilterNumber: Sendable, Equatable {
  case integer(Int64)
  /// An integer above `Int64.max`.
  case unsigned(UInt64)
  case number(Double)
}
