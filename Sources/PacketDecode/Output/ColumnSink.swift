import PacketKit

/// `--format csv` (RFC 4180: a header row, fields quoted when they hold a
/// comma, quote or line break, CRLF line ends) and `--format tsv` (tabs,
/// no quoting: tabs and line breaks in a value become spaces), one row
/// per message, for spreadsheets, pandas and DuckDB. Columns are named as
/// the display filter names fields (`legctrl.state`), and read through
/// the same paths; a value is written as ndjson writes it (numbers in the
/// same shortest form, enumerations by name, bytes as hex), a field's
/// several occurrences joined by commas, as tshark -T fields does.
package final class ColumnSink: MessageSink {
  package enum Separator {
    case comma, tab
  }

  package enum Column {
    case field(FilterField)
    /// `time` as `-t` asks (ndjson's Unix seconds when `-t` is not given).
    case time
    /// The input file, when several are decoded.
    case file
  }

  private let out: OutputWriter
  private let columns: [Column]
  private let separator: Separator
  private let clock: TimeColumn?
  private let file: String
  @exclusivity(unchecked) private var cell = JSONWriter(capacity: 256)

  /// The default columns: where a message came from and what it is.
  package static let defaultFields = [
    "frame", "time", "src", "dst", "transport", "codec", "message", "length", "error.code",
  ]

  package init(
    out: OutputWriter, columns: [Column], names: [String], separator: Separator, clock: TimeColumn?,
    file: String, header: Bool
  ) {
    self.out = out
    self.columns = columns
    self.separator = separator
    self.clock = clock
    self.file = file
    if header {
      out.append { buffer in
        for (index, name) in names.enumerated() {
          if index > 0 { buffer.append(self.separatorByte) }
          self.cell.removeAll()
          self.cell.append(utf8: name)
          self.writeCell(into: &buffer)
        }
        self.endRow(&buffer)
      }
    }
  }

  /// The columns `names` asks for (`file` among them when several files
  /// are decoded); an unknown name is one line saying which, exit 64.
  package static func columns(_ names: [String], codecs: CodecSet) throws(CommandFailure) -> [Column] {
    let vocabulary = RecordFields(codecs: codecs)
    var columns: [Column] = []
    for name in names {
      if name == "file" {
        columns.append(.file)
        continue
      }
      if name == "time" {
        columns.append(.time)
        continue
      }
      let parts = name.split(separator: ".", omittingEmptySubsequences: false)
      guard !name.isEmpty, !parts.contains(where: \.isEmpty), let resolved = vocabulary.resolve(parts) else {
        let why = name.isEmpty ? "an empty name" : vocabulary.unknown(name)
        throw CommandFailure("--fields: '\(name)' is not a field: \(why)", status: ExitStatus.usage)
      }
      columns.append(
        .field(
          FilterField(
            name: name, column: 0, root: resolved.root, path: FilterPath(parts.dropFirst(resolved.parts)))))
    }
    return columns
  }

  package var wantsPayload: Bool { false }
  package var acceptsFlatRecords: Bool { true }

  private var separatorByte: UInt8 { separator == .comma ? UInt8(ascii: ",") : 0x09 }

  package func firstRecord(time: Double) {
    if clock?.base == nil { clock?.base = time }
  }

  package func emit(_ record: DecodedRecord) {
    out.append { buffer in
      for (index, column) in columns.enumerated() {
        if index > 0 { buffer.append(separatorByte) }
        cell.removeAll()
        switch column {
        case .file:
          cell.append(utf8: file)
        case .time:
          if let time = record.time {
            if let clock { clock.write(time, into: &cell) } else { cell.number(time) }
          }
        case .field(let field):
          var first = true
          record.visitValues(of: field) { value in
            if !first { cell.append(UInt8(ascii: ",")) }
            first = false
            Self.write(value, into: &cell)
            return true
          }
        }
        writeCell(into: &buffer)
      }
      endRow(&buffer)
    }
  }

  package func finish(name: String, stats: CaptureStats) {}

  /// One value as ndjson shows it, without JSON's quotes.
  package static func write(_ value: FilterValue, into cell: inout JSONWriter) {
    switch value {
    case .integer(let v): cell.integer(v)
    case .unsigned(let v): cell.integer(v)
    case .number(let v): if v.isFinite { cell.number(v) }
    case .boolean(let v): cell.bool(v)
    case .text(let bytes): cell.append(bytes: bytes)
    case .enumeration(let name, _): cell.append(bytes: name)
    case .bytes(let bytes):
      for byte in bytes {
        cell.append(Self.hexDigits[Int(byte >> 4)])
        cell.append(Self.hexDigits[Int(byte & 0x0F)])
      }
    case .present: break
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// `cell` into the row: quoted for CSV when it must be, flattened for TSV.
  private func writeCell(into buffer: inout JSONWriter) {
    cell.withUnsafeBytes { bytes in
      switch separator {
      case .comma:
        let needsQuotes = bytes.contains {
          $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        guard needsQuotes else {
          buffer.append(bytes: bytes)
          return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in bytes {
          if byte == UInt8(ascii: "\"") { buffer.append(byte) }
          buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
      case .tab:
        for byte in bytes { buffer.append(byte == 0x09 || byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
      }
    }
  }

  private func endRow(_ buffer: inout JSONWriter) {
    if separator == .comma { buffer.append(0x0D) }
    buffer.append(0x0A)
  }
}
