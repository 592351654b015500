import Foundation
import LegCtrlCodec
import PacketKit
import RallieCodec
import Testing

/// The layout LegCtrl and Rallie expose (`SpecDescribed`, read by
/// `pktbench dissector`) is the shipped spec file, byte for byte; the
/// agreement tests hold that file against the Swift codecs.
@Suite struct SpecTextTests {
  @Test(arguments: [
    ("legctrl", LegCtrlCodec().specText), ("rallie", RallieCodec().specText),
  ])
  func pluginTextIsTheShippedSpec(name: String, text: String) throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Specs/\(name).ksy")
    let shipped = try String(contentsOf: file, encoding: .utf8)
    #expect(text + "\n" == shipped)
  }
}
