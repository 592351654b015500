import CodecRegistry

/// The examples in help texts: a command's own, then those its codecs'
/// plugins give (`CodecInfo.examples`), so the CLI names no codec.
enum HelpExamples {
  /// "Examples:" then one line each, indented as ArgumentParser shows them.
  static func text(_ command: String, generic: [String] = []) -> String {
    let lines = generic + Codecs.examples(for: command).map { "pktbench " + $0 }
    return (["Examples:"] + lines.map { "  " + $0 }).joined(separator: "\n")
  }

  /// A codec that lives on BLE, for `--ble-map` examples.
  static var bleCodec: String {
    Codecs.all.first { !$0.info.gattCharacteristics.isEmpty }?.name ?? "CODEC"
  }
}
