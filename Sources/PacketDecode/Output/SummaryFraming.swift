import PacketKit

/// The fields each codec's summary lines leave out, as its plugin names
/// them (`CodecInfo.framingFields`): a header, magic bytes, a check.
package struct SummaryFraming: Sendable {
  /// A class, so that key fields chosen under one framing (and kept per
  /// layout of names) can tell another framing by identity.
  final class Table: Sendable {
    let byCodec: [String: Set<String>]

    package init(_ byCodec: [String: Set<String>]) {
      self.byCodec = byCodec
    }
  }

  let table: Table

  /// No field is left out.
  package static let none = SummaryFraming(table: Table([:]))

  private init(table: Table) {
    self.table = table
  }

  package init(_ codecs: CodecSet) {
    var byCodec: [String: Set<String>] = [:]
    for codec in codecs.all where !codec.info.framingFields.isEmpty {
      byCodec[codec.info.name] = codec.info.framingFields
    }
    self.init(table: Table(byCodec))
  }

  /// Which framing this is, for caches of choices made under it.
  var identity: ObjectIdentifier { ObjectIdentifier(table) }

  /// The names `codec` leaves out.
  package func names(for codec: String) -> Set<String> {
    table.byCodec.isEmpty ? [] : table.byCodec[codec] ?? []
  }
}
