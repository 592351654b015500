import ArgumentParser
import PacketDecode
import PacketKit

/// `--codec` and `--decode-as`: how payloads find their codec, the same for
/// decode, analyze, capture and listen.
struct RoutingOptions: ParsableArguments {
  @Option(help: "Decode every payload with this codec (\(CommandContext.codecs.nameList)).")
  var codec: String?

  @Option(
    name: .customLong("decode-as"),
    help: "Route a port to a codec: udp:9000=CODEC, tcp:8080=CODEC (repeatable).")
  var decodeAs: [String] = []

  func validate() throws {
    let codecs = CommandContext.codecs
    if let codec, codecs.named(codec) == nil {
      throw ValidationError("unknown codec '\(codec)'; known: \(codecs.names.joined(separator: ", "))")
    }
    do {
      _ = try rules(codecs: codecs)  // a bad --decode-as fails before any output
    } catch let failure as CommandFailure {
      throw ValidationError(failure.message)
    }
  }

  func rules(codecs: CodecSet) throws -> [DecodeAsRule] {
    try decodeAs.map { try DecodeAsRule.parse($0, codecs: codecs) }
  }

  func router(codecs: CodecSet) throws -> PayloadRouter {
    PayloadRouter(rules: try rules(codecs: codecs), forcedCodec: codec, codecs: codecs)
  }
}
