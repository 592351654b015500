import CodecRegistry
import PacketKit

/// Chooses the codec for an application payload: `--decode-as` rules
/// first, then the well-known endpoints the codecs name (a UDP port, a
/// WebSocket path), then every codec's probe.
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
    /// Chosen by a probe (not by a port, path or rule).
    var byProbe = false

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

  /// UDP port → the codec that names it, with its routing reason.
  private let udpPorts: [UInt16: Choice] = Codecs.wellKnownUDPPorts.mapValues {
    Choice(index: $0.index, reason: "udp port \($0.port)")
  }
  /// WebSocket path prefixes and their codecs, longest first.
  private let webSocketPaths: [(prefix: String, choice: Choice)] = Codecs.wellKnownWebSocketPaths.map {
    ($0.prefix, Choice(index: $0.index, reason: "websocket \($0.prefix)"))
  }

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
    case .udp:
      if let choice = udpPorts[destinationPort] ?? udpPorts[sourcePort] { return choice }
    case .websocket(let path?):
      if let known = webSocketPaths.first(where: { path.hasPrefix($0.prefix) }) { return known.choice }
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
    return Choice(index: best.index, reason: probeReasons[min(best.score, 100)], byProbe: true)
  }

  /// "probe 0" … "probe 100", made once rather than per packet (and held
  /// per router: a static is a lazy global, checked on every access).
  private let probeReasons: [String] = (0...100).map { "probe \($0)" }
}
