/// An expression of Kaitai Struct's expression language, as parsed: what
/// `size`, `if`, `repeat-expr`, `value`, `pos`, `switch-on`, `valid` and
/// parameters hold. Names are resolved later, against the type it is in
/// (`KsCompiler`); here it is only syntax.
indirect enum KsExpression: Sendable, Equatable {
  case integer(Int64)
  case float(Double)
  /// A string literal's UTF-8 bytes.
  case string([UInt8])
  case bool(Bool)
  /// `[1, 2, 3]`: an array literal (a byte array when its elements fit bytes).
  case array([KsExpression])
  /// A bare name: an attribute, a parameter, `_`, `_io`, `_parent`, `_root`, `_index`.
  case name(String)
  /// `enum_name::value`, or `type::enum_name::value` (`path` holds the types).
  case enumValue(path: [String], enumeration: String, value: String)
  case unary(KsUnary, KsExpression)
  case binary(KsBinary, KsExpression, KsExpression)
  case ternary(KsExpression, KsExpression, KsExpression)
  /// `x.name`: an attribute of a user type, or a method without arguments.
  case member(KsExpression, String)
  /// `x.name(arguments)`.
  case call(KsExpression, String, [KsExpression])
  /// `x[i]`.
  case index(KsExpression, KsExpression)
  /// `x.as<type>`.
  case cast(KsExpression, String)
}

enum KsUnary: String, Sendable {
  case negate = "-", invert = "~", not = "not"
}

enum KsBinary: String, Sendable {
  case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "%"
  case shiftLeft = "<<", shiftRight = ">>", and = "&", or = "|", xor = "^"
  case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
  case logicalAnd = "and", logicalOr = "or"
}

extension KsExpression {
  /// The attribute path this expression is, when it is only names joined
  /// by dots (`header.payload_len`): what a length field's craft reads.
  var path: [String]? {
    switch self {
    case .name(let name): return [name]
    case .member(let base, let name):
      guard let head = base.path else { return nil }
      return head + [name]
    default: return nil
    }
  }
}
