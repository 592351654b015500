import Foundation
import PacketKit
import SpecCodecs

/// Loading specs in tests: the shipped ones by path, made-up ones from text.
enum SpecSupport {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static func shipped(_ name: String) throws -> SpecCodec {
    SpecCodec(try SpecLoader.load(path: root.appendingPathComponent("Specs/\(name).yaml").path))
  }

  static func codec(_ text: String, file: String = "test.yaml") throws -> SpecCodec {
    SpecCodec(try SpecLoader.load(text: text, file: file))
  }

  /// The load error's one line, or nil when it loads.
  static func loadError(_ text: String) -> String? {
    do {
      _ = try SpecLoader.load(text: text, file: "x.yaml")
      return nil
    } catch {
      return error.description
    }
  }

  static func bytes(_ hex: String) -> [UInt8] {
    (try? Hex.parse(hex)) ?? []
  }
}
