import FalconEyeCodec
import LegCtrlCodec
import PacketKit
import RallieCodec
import RiderCodec

/// The codecs pktbench knows. Adding a codec: a folder under Plugins/, a
/// target in Package.swift, and one line here.
public enum Codecs {
  public static let all: [any FrameCodec] = [
    RiderCodec(),
    LegCtrlCodec(),
    RallieCodec(),
    FalconEyeCodec(),
  ]

  public static var names: [String] { all.map(\.info.name) }

  public static func named(_ name: String) -> (any FrameCodec)? {
    let wanted = name.lowercased()
    return all.first { $0.info.name == wanted }
  }

  /// The codec and message schema a `craft` name stands for: a message's
  /// name, one of its craft names, or `codec.message`.
  public static func message(forCraftName name: String) -> (codec: any FrameCodec, schema: MessageSchema)? {
    if let dot = name.firstIndex(of: "."), let codec = named(String(name[..<dot])) {
      let rest = String(name[name.index(after: dot)...])
      return codec.info.message(named: rest).map { (codec, $0) }
    }
    for codec in all {
      if let schema = codec.info.messages.first(where: { $0.craftNames.contains(name) }) {
        return (codec, schema)
      }
    }
    for codec in all {
      if let schema = codec.info.messages.first(where: { $0.name == name }) {
        return (codec, schema)
      }
    }
    return nil
  }

  /// Every codec's probe score for a payload, best first.
  public static func probe(_ bytes: UnsafeRawBufferPointer) -> [(codec: any FrameCodec, score: Int)] {
    all.map { ($0, $0.probe(bytes)) }.sorted { $0.score > $1.score }
  }
}
