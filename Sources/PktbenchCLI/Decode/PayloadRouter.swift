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
    /// The codec's index in `Codecs.all`.
    var index: Int
    var reason: String

    var codec: any FrameCodec { Codecs.all[index] }

    func cleanKind(_ payload: UnsafeRawBufferPointer) -> Int? { Codecs.cleanKind(index, payload) }
    func decodeFrame(_ payload: UnsafeRawBufferPointer) -> FrameDecode { Codecs.decodeFrame(index, payload) }
    func cleanFields(_ payload: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
      Codecs.cleanFields(index, payload, into: &fields)
    }
  }

  /// `--decode-as` rules with their codec resolved once, not per payload.
  private let ruleChoices: [(rule: DecodeAsRule, choice: Choice)]
  /// `--codec`'s index in `Codecs.all`.
  let forcedIndex: Int?
  var forcedCodec: (any FrameCodec)? { forcedIndex.map { Codecs.all[$0] } }
  /// Probes must be at least this sure to claim a payload nobody routed.
  private let minimumProbeScore: Int

  /// The codecs in the registry that handle these transport carriers.
  static let riderPort: UInt16 = 5005

  private let rider = Codecs.index(named: "rider")
  private let falconEye = Codecs.index(named: "falconeye")

  init(rules: [DecodeAsRule], forcedCodec: String?, minimumProbeScore: Int = 40) {
    self.ruleChoices = rules.compactMap { rule in
      Codecs.index(named: rule.codec).map {
        (rule, Choice(index: $0, reason: "--decode-as \(rule.transport.rawValue):\(rule.port)"))
      }
    }
    self.forcedIndex = forcedCodec.flatMap { Codecs.index(named: $0) }
    self.minimumProbeScore = minimumProbeScore
  }

  func choose(
    _ carrier: Carrier, sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer
  ) -> Choice? {
    if let forcedIndex { return Choice(index: forcedIndex, reason: "--codec") }
    let transport: DecodeAsRule.Transport
    switch carrier {
    case .udp: transport = .udp
    case .tcp, .websocket: transport = .tcp
    }
    for (rule, choice) in ruleChoices where rule.transport == transport {
      if rule.port == destinationPort || rule.port == sourcePort { return choice }
    }
    switch carrier {
    case .udp where destinationPort == Self.riderPort || sourcePort == Self.riderPort:
      if let rider { return Choice(index: rider, reason: "udp port 5005") }
    case .websocket(let path?) where path.hasPrefix("/ws/connect/"):
      if let falconEye { return Choice(index: falconEye, reason: "websocket /ws/connect/") }
    default:
      break
    }
    return probe(payload)
  }

  /// The codec whose probe is surest of a payload nothing else routed, when
  /// it is sure enough.
  func probe(_ payload: UnsafeRawBufferPointer) -> Choice? {
    let best = Codecs.bestProbe(payload)
    guard best.score >= minimumProbeScore else { return nil }
    return Choice(index: best.index, reason: probeReasons[min(best.score, 100)])
  }

  /// "probe 0" … "probe 100", made once rather than per packet (and held
  /// per router: a static is a lazy global, checked on every access).
  private let probeReasons: [String] = (0...100).map { "probe \($0)" }
}
