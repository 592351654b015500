import CodecRegistry
import PacketKit

/// Chooses the codec for an application payload: `--decode-as` rules
/// first, then the protocols' well-known endpoints (UDP 5005 is Rider, a
/// WebSocket on /ws/connect/ is FalconEye), then every codec's probe.
struct PayloadRouter {
  enum Carrier {
    case udp
    case tcp
    case websocket(path: String?)
  }

  struct Choice {
    var codec: any FrameCodec
    var reason: String
  }

  private let rules: [DecodeAsRule]
  let forcedCodec: (any FrameCodec)?
  /// Probes must be at least this sure to claim a payload nobody routed.
  private let minimumProbeScore: Int

  /// The codecs in the registry that handle these transport carriers.
  static let riderPort: UInt16 = 5005

  private let rider = Codecs.named("rider")
  private let falconEye = Codecs.named("falconeye")

  init(rules: [DecodeAsRule], forcedCodec: String?, minimumProbeScore: Int = 40) {
    self.rules = rules
    self.forcedCodec = forcedCodec.flatMap { Codecs.named($0) }
    self.minimumProbeScore = minimumProbeScore
  }

  func choose(
    _ carrier: Carrier, sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer
  ) -> Choice? {
    if let forcedCodec { return Choice(codec: forcedCodec, reason: "--codec") }
    let transport: DecodeAsRule.Transport
    switch carrier {
    case .udp: transport = .udp
    case .tcp, .websocket: transport = .tcp
    }
    for rule in rules where rule.transport == transport {
      if rule.port == destinationPort || rule.port == sourcePort, let codec = Codecs.named(rule.codec) {
        return Choice(codec: codec, reason: "--decode-as \(rule.transport.rawValue):\(rule.port)")
      }
    }
    switch carrier {
    case .udp where destinationPort == Self.riderPort || sourcePort == Self.riderPort:
      if let rider { return Choice(codec: rider, reason: "udp port 5005") }
    case .websocket(let path?) where path.hasPrefix("/ws/connect/"):
      if let falconEye { return Choice(codec: falconEye, reason: "websocket /ws/connect/") }
    default:
      break
    }
    let best = Codecs.bestProbe(payload)
    guard best.score >= minimumProbeScore else { return nil }
    return Choice(codec: Codecs.all[best.index], reason: Self.probeReasons[min(best.score, 100)])
  }

  /// "probe 0" … "probe 100", made once rather than per packet.
  private static let probeReasons: [String] = (0...100).map { "probe \($0)" }
}
