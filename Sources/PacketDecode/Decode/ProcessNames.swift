import PacketCapture
import PacketKit

/// How a record shows the process a PKTAP header named (which app on the
/// Mac or iPhone sent or received it): `process: {"name", "pid"}` among the
/// record's extra members, as BLE records carry `handle` and `uuid`, with
/// `effective: {"name", "pid"}` inside it when the process worked for
/// another; and `[HawkSight 412]` on the summary line. The last process's
/// texts are kept: packets come in runs from one app.
struct ProcessNames {
  private var last: PKTAP.Process?
  private var member: FieldValue.Member?
  private var note = ""

  package mutating func attach(_ process: PKTAP.Process, to record: inout DecodedRecord) {
    if last != process {
      last = process
      var fields: [FieldValue.Member] = [
        .init("name", .string(process.name)), .init("pid", .integer(Int64(process.pid))),
      ]
      // A name is 16 bytes of the capture's: escaped, as -V and JSON escape it, before it reaches a terminal.
      note = "[\(TerminalText.escaped(process.name)) \(process.pid)"
      if let effectiveName = process.effectiveName, let effectivePID = process.effectivePID {
        fields.append(
          .init(
            "effective",
            .object([.init("name", .string(effectiveName)), .init("pid", .integer(Int64(effectivePID)))])))
        note += " for \(TerminalText.escaped(effectiveName)) \(effectivePID)"
      }
      note += "]"
      member = .init("process", .object(fields))
    }
    if let member { record.extra.append(member) }
    record.carrierNote = record.carrierNote.map { "\($0) \(note)" } ?? note
  }
}
