import PacketDecode
import PacketKit

/// What `emulate` plays: a codec's device model and its settings.
public struct EmulationSettings: Sendable {
  package var codec: String
  package var settings: ModelSettings
  /// Events as `analyze --timeline`'s NDJSON instead of text.
  package var ndjson: Bool

  /// The device model of the codec named `name`, with `settings` (by the
  /// flags of its `DeviceDescription.settings`), checked by making the
  /// model once. A model that takes a seed and is given none gets a random one.
  public init(codec name: String, settings: ModelSettings = [:], ndjson: Bool = false, codecs: CodecSet)
    throws(CommandFailure)
  {
    let (codec, behaviour) = try Self.device(name, in: codecs)
    var settings = settings
    // A model that needs randomness (a session id) declares a seed and
    // takes it from here, so the model itself stays deterministic.
    if behaviour.device.settings.contains(where: { $0.flag == "seed" }), settings["seed"] == nil {
      settings["seed"] = String(UInt64.random(in: 1...UInt64.max))
    }
    do {
      _ = try behaviour.makeModel(mode: .emulation, settings: settings)
    } catch {
      throw CommandFailure(error.text)
    }
    self.codec = codec.info.name
    self.settings = settings
    self.ndjson = ndjson
  }

  /// The codec named and its device model, or one sentence saying why there is none.
  package static func device(_ name: String, in codecs: CodecSet) throws(CommandFailure) -> (
    codec: any FrameCodec, behaviour: any DeviceBehaviour
  ) {
    guard let codec = codecs.named(name) else {
      throw CommandFailure("unknown codec '\(name)'; the codecs are \(codecs.nameList)")
    }
    guard let behaviour = codec as? any DeviceBehaviour else {
      let modelled = codecs.all.filter { $0 is any DeviceBehaviour }.map(\.info.name)
      throw CommandFailure(
        "\(codec.info.name) has no device model to emulate; these do: \(modelled.joined(separator: ", "))")
    }
    return (codec, behaviour)
  }
}
