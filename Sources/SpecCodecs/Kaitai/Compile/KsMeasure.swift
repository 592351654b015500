/// A field computed from what it sizes or counts: a length whose `size:`
/// expression is the field, or a simple arithmetic of it (`len`,
/// `len - 4`, `(len - 2) * 2`), or a count a `repeat-expr` reads.
/// `craft` writes it from the content, as `size = scale × field + offset`
/// solved for the field.
struct KsMeasure: Sendable {
  /// The length or count field.
  var target: (type: Int, slot: Int)
  /// The attribute it measures.
  var source: (type: Int, slot: Int)
  /// The path to the field from the measured attribute's object.
  var path: KsCode
  var scale: Int64
  var offset: Int64
  /// Elements (a repeat) rather than bytes.
  var counts: Bool

  /// The field's value for a measured size or count; nil when none gives it.
  func value(for size: Int64) -> Int64? {
    let (difference, overflow) = size.subtractingReportingOverflow(offset)
    guard !overflow, scale != 0, difference % scale == 0 else { return nil }
    return difference / scale
  }

  /// `code` as `scale × path + offset`, when it is that.
  static func linear(_ code: KsCode) -> (path: KsCode, scale: Int64, offset: Int64)? {
    switch code {
    case .slot, .member, .dynamicMember: return (code, 1, 0)
    case .arithmetic(let op, let a, let b, false):
      switch op {
      case .add:
        if let (path, scale, offset) = linear(a), case .constant(.integer(let c)) = b {
          return (path, scale, offset &+ c)
        }
        if let (path, scale, offset) = linear(b), case .constant(.integer(let c)) = a {
          return (path, scale, offset &+ c)
        }
      case .subtract:
        if let (path, scale, offset) = linear(a), case .constant(.integer(let c)) = b {
          return (path, scale, offset &- c)
        }
        if let (path, scale, offset) = linear(b), case .constant(.integer(let c)) = a {
          return (path, -scale, c &- offset)
        }
      case .multiply:
        if let (path, scale, offset) = linear(a), case .constant(.integer(let c)) = b, c != 0 {
          return (path, scale &* c, offset &* c)
        }
        if let (path, scale, offset) = linear(b), case .constant(.integer(let c)) = a, c != 0 {
          return (path, scale &* c, offset &* c)
        }
      default: return nil
      }
      return nil
    default: return nil
    }
  }
}
