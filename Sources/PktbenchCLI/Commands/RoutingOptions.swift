import ArgumentParser
import CodecRegistry

/// `--codec` and `--decode-as`: how payloads find their codec, the same for
/// decode, analyze, capture and listen.
struct RoutingOptions: ParsableArguments {
  @Option(help: "Decode every payload with this codec (\(Codecs.nameList)).")
  var codec: String?

  @Option(
    name: .customLong("decode-as"),
    help: "Route a port to a codec: udp:9000=CODEC, tcp:8080=CODEC (repeatable).")
  var decodeAs: [String] = []

  func validate() throws {
    if let codec, Codecs.named(codec) == nil {
      throw ValidationError("unknown codec '\(codec)'; known: \(Codecs.names.joined(separator: ", "))")
    }
    do {
      _ = try rules()  // a bad --decode-as fails before any output
    } catch let failure as CommandFailure {
      throw ValidationError(failure.message)
    }
  }

  func rules() throws -> [DecodeAsRule] {
    try decodeAs.map { try DecodeAsRule.parse($0) }
  }

  func router() throws -> PayloadRouter {
    PayloadRouter(rules: try rules(), forcedCodec: codec)
  }
}
