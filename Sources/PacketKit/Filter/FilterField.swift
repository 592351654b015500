/// A field a filter reads, resolved once when it is compiled: the front
/// end's number for what the name starts with (a built-in field, a codec,
/// an event family), and the rest of the dotted name as a path into the
/// message's fields.
public struct FilterField: Sendable {
  /// The name as written (`legctrl.header.msg_type`).
  public var name: String
  /// The column it starts at, for messages.
  public var column: Int
  /// What the vocabulary made of the name's start; its own numbering.
  public var root: Int
  /// The parts after those the root took (`header`, `msg_type`).
  public var path: FilterPath

  public init(name: String, column: Int, root: Int, path: FilterPath) {
    self.name = name
    self.column = column
    self.root = root
    self.path = path
  }
}

/// What a front end tells the filter about its names.
public protocol FilterVocabulary {
  /// The root a dotted name starts with and how many of its parts that root
  /// takes (`rider.left`: the codec rider, one part), or nil when the name
  /// is not one of this front end's.
  func resolve(_ parts: [Substring]) -> (root: Int, parts: Int)?

  /// Why `name` is not a field, in a few words for the one-line error
  /// (what names exist).
  func unknown(_ name: String) -> String
}

/// A record the filter can read: each field's values, found along a
/// pre-resolved path, lent one at a time.
public protocol FilterRecord {
  /// Calls `visit` with each value `field` has in this record, in order,
  /// until `visit` returns false; not at all when the record lacks it.
  func visitValues(of field: FilterField, _ visit: (FilterValue) -> Bool)
}
