import ArgumentParser
import PacketDecode
import PacketKit
import PacketLive
import Testing

@testable import PktbenchCLI

/// Text output on a terminal: nothing from the wire reaches it raw (keys,
/// diagnostics, errors, events), colour only where it shows, and help and
/// times as a person reads them.
@Suite struct TerminalOutputTests {
  /// ESC [ 2 J (ED, erase display) and ESC ] 0 ; … BEL (OSC, set title):
  /// ECMA-48 §8.3.39 and xterm's control sequences.
  static let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m"

  static func record() -> DecodedRecord {
    let fields = [
      DissectionNode("left", .integer(1), range: 8..<9),
      DissectionNode(hostile, .string(hostile), range: 10..<20),
      DissectionNode(
        group: hostile, range: 20..<30, children: [DissectionNode("x", .integer(2), range: 21..<22)]),
    ]
    let frame = DecodedFrame(
      codec: "rider", message: "drive", fields: fields,
      diagnostics: [.warning("unknown-key", "unknown key \(hostile)", range: 10..<20)])
    var record = DecodedRecord(frame: 1, time: 5, transport: "udp", payloadLength: 30)
    record.result = .decoded(frame)
    record.payload = Array(repeating: 0x41, count: 30)
    record.extra = [.init("ws", .string(hostile))]
    return record
  }

  static func noControls(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
  }

  @Test func summaryLinesEscapeKeysAndValues() {
    let line = SummaryRenderer.line(Self.record(), firstTime: nil, style: Style(enabled: false))
    #expect(Self.noControls(line), "\(line)")
    #expect(line.contains(#"\u001b[2J"#))
  }

  @Test func treesEscapeKeysDiagnosticsAndExtras() {
    for line in TreeRenderer.lines(Self.record(), style: Style(enabled: false)) {
      #expect(Self.noControls(line), "\(line)")
    }
  }

  @Test func hexDumpMarksEscapeFieldNames() throws {
    let record = Self.record()
    guard case .decoded(let frame) = record.result else { return }
    for line in HexDump.markedLines(try #require(record.payload), fields: frame.fields) {
      #expect(Self.noControls(line), "\(line)")
    }
  }

  @Test func errorsAndEventsAreEscaped() {
    var failed = DecodedRecord(frame: 2, time: 6, transport: "udp", payloadLength: 3)
    let text = "unexpected key \(Self.hostile)"
    failed.result = .failed(codec: "rider", error: DecodeError(code: "bad-json", offset: 1) { .init(text) })
    var event = DecodedRecord(frame: 3, time: 7, transport: "websocket", payloadLength: 0)
    event.event = ("ws.close", [.init("reason", .string(Self.hostile))])
    var damaged = DecodedRecord(frame: 4, time: 8, transport: "websocket", payloadLength: 0)
    damaged.layerError = DecodeError(code: "bad-handshake") { .init(text) }
    for record in [failed, event, damaged] {
      let line = SummaryRenderer.line(record, firstTime: nil, style: Style(enabled: false))
      #expect(Self.noControls(line), "\(line)")
      for line in TreeRenderer.lines(record, style: Style(enabled: false)) {
        #expect(Self.noControls(line), "\(line)")
      }
    }
  }

  @Test func emulatorLinesEscapeTheModelsWords() {
    let event = DeviceEvent(
      time: 1_700_000_000, frame: 1, name: "ignored", certain: true,
      state: [.init("left", .string(Self.hostile))], text: "not JSON: \(Self.hostile)")
    let line = EmulatorTimeline.text(event, flow: 1, style: Style(enabled: false))
    #expect(Self.noControls(line), "\(line)")
  }

  /// no-color.org: NO_COLOR set to anything but "" turns colour off; a
  /// dumb terminal (TERM=dumb, or none named) shows no escape codes.
  @Test(arguments: [
    (["TERM": "xterm-256color"], true),
    (["TERM": "dumb"], false),
    ([:], false),
    (["TERM": "xterm", "NO_COLOR": "1"], false),
    (["TERM": "xterm", "NO_COLOR": ""], true),
  ])
  func colourOnlyWhereItShows(environment: [String: String], allowed: Bool) {
    #expect(Style.allowsColour(environment) == allowed)
  }

  @Test func durationDefaultsShowAsTyped() {
    #expect(DurationArgument(seconds: 10).defaultValueDescription == "10s")
    #expect(DurationArgument(seconds: 0.5).defaultValueDescription == "500ms")
    #expect(DurationArgument(seconds: 0).defaultValueDescription == "0s")
    for command in HelpTextTests.commands {
      let help = Pktbench.helpMessage(for: command, columns: 80)
      #expect(!help.contains("DurationArgument"), "\(command.configuration.commandName ?? "")")
    }
  }

  @Test func helpForNoCommandIsAnError() {
    #expect(Pktbench.unknownHelpTopic(["help", "nosuch"]) == "nosuch")
    #expect(Pktbench.unknownHelpTopic(["help", "decode"]) == nil)
    #expect(Pktbench.unknownHelpTopic(["help"]) == nil)
    #expect(Pktbench.unknownHelpTopic(["decode", "nosuch"]) == nil)
  }

  /// -V shows a record's Unix time; a btsnoop log can hold one before 1970.
  @Test func negativeTimesKeepTheirDigits() {
    #expect(TreeRenderer.format6(-1.000001) == "-1.000001")
    #expect(TreeRenderer.format6(1_700_000_000.25) == "1700000000.250000")
  }
}
