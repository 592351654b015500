import PacketDecode
import PacketKit

/// `analyze --model CODEC.SETTING=VALUE`: the same settings `emulate`
/// takes as flags, checked against the codec's device description and by
/// making a model with them, so a wrong one is one line before any work.
enum ModelSettingArguments {
  static func parse(_ arguments: [String], codecs: CodecSet) throws(CommandFailure) -> [String: ModelSettings]
  {
    var grouped: [String: [String]] = [:]
    for argument in arguments {
      let (target, value) =
        argument.firstIndex(of: "=").map {
          (String(argument[..<$0]), String(argument[argument.index(after: $0)...]))
        }
        ?? (argument, nil)
      guard let dot = target.firstIndex(of: "."), let codec = codecs.named(String(target[..<dot])),
        codec is any DeviceBehaviour
      else {
        let modelled = codecs.all.filter { $0 is any DeviceBehaviour }.map(\.info.name)
        throw CommandFailure(
          "--model '\(argument)': expected CODEC.SETTING=VALUE with CODEC one of \(modelled.joined(separator: ", "))"
        )
      }
      let flag = "--" + target[target.index(after: dot)...]
      grouped[codec.info.name, default: []] += [flag] + (value.map { [$0] } ?? [])
    }
    var settings: [String: ModelSettings] = [:]
    for (name, tokens) in grouped {
      guard let behaviour = codecs.named(name) as? any DeviceBehaviour else { continue }
      let parsed = try EmulateCommand.parse(tokens, for: behaviour.device, codec: name)
      do {
        _ = try behaviour.makeModel(mode: .analysis, settings: parsed)
      } catch {
        throw CommandFailure("--model: \(error.text)")
      }
      settings[name] = parsed
    }
    return settings
  }
}
