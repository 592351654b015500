import PacketKit

/// Chooses the codec for an application payload: `--decode-as` rules
/// first, then the well-known endpoints the codecs name (a UDP port, a
/// WebSocket path, a GATT characteristic), then every codec's probe.
///
/// A class, and its choices plain values: a struct of arrays called through
/// a pipeline's stored property was retained field by field per payload,
/// and a choice holding a String was copied with a retain and a release.
package final class PayloadRouter {
  package enum Carrier {
    case udp
    case tcp
    case websocket(path: String?)
  }

  package struct Choice {
    /// The codec's index in `codecs.all`.
    package var index: Int
    /// Why it was chosen; its words are the router's (`reason(_:)`), read
    /// only when a record shows them.
    package var why: Reason
    /// Chosen by a probe (not by a port, path, characteristic or rule).
    var byProbe = false

  }

  /// Why a codec was chosen. Indices are into the router's own lists.
  package enum Reason: Equatable {
    case forced
    case decodeAs(rule: Int)
    case udpPort(UInt16)
    case webSocketPath(Int)
    case gatt(Int)
    case probe(Int)
    case flow
    case bleMap
  }

  /// The codecs it chooses among.
  package let codecs: CodecSet
  /// `--decode-as` rules with their codec resolved once, not per payload.
  private let ruleChoices: [(rule: DecodeAsRule, choice: Choice)]
  /// `--codec`'s index in `codecs.all`.
  let forcedIndex: Int?
  package var forcedCodec: (any FrameCodec)? { forcedIndex.map { codecs.all[$0] } }
  /// Probes must be at least this sure to claim a payload nobody routed.
  private let minimumProbeScore: Int
  /// The UDP ports the codecs name and the choice each stands for: a few,
  /// searched in order (a dictionary hashed the port on every datagram).
  private let udpPorts: [UInt16]
  /// Neither `--codec` nor a `--decode-as` rule: ports decide first.
  private let plainUDP: Bool
  private let udpChoices: [Choice]
  private let udpReasons: [String]
  /// WebSocket path prefixes and their codecs, longest first.
  private let webSocketPaths: [(prefix: String, choice: Choice)]
  /// GATT characteristics (lower case) and their codecs, with their words.
  private let gattUUIDs: [String]
  private let gattChoices: [Choice]
  private let gattReasons: [String]
  /// "probe 0" … "probe 100", made once rather than per packet.
  private let probeReasons: [String] = (0...100).map { "probe \($0)" }

  package init(
    rules: [DecodeAsRule], forcedCodec: String?, minimumProbeScore: Int = 40, codecs: CodecSet
  ) {
    self.codecs = codecs
    let resolved = rules.compactMap { rule in codecs.index(named: rule.codec).map { (rule, $0) } }
    ruleChoices = resolved.enumerated().map { number, pair in
      (pair.0, Choice(index: pair.1, why: .decodeAs(rule: number)))
    }
    forcedIndex = forcedCodec.flatMap { codecs.index(named: $0) }
    self.minimumProbeScore = minimumProbeScore
    let ports = codecs.wellKnownUDPPorts.sorted { $0.key < $1.key }
    udpPorts = ports.map(\.key)
    udpChoices = ports.map { Choice(index: $0.value.index, why: .udpPort($0.key)) }
    plainUDP = forcedIndex == nil && !resolved.contains { $0.0.transport == .udp }
    udpReasons = ports.map { "udp port \($0.key)" }
    webSocketPaths = codecs.wellKnownWebSocketPaths.enumerated().map { number, known in
      (known.prefix, Choice(index: known.index, why: .webSocketPath(number)))
    }
    let characteristics = codecs.gattCharacteristics.sorted { $0.key < $1.key }
    gattUUIDs = characteristics.map(\.key)
    gattChoices = characteristics.enumerated().map { Choice(index: $1.value, why: .gatt($0)) }
    gattReasons = characteristics.map { "gatt \($0.key.prefix(8))…" }
  }

  package func choose(
    _ carrier: Carrier, sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer
  ) -> Choice? {
    if let forcedIndex { return Choice(index: forcedIndex, why: .forced) }
    if !ruleChoices.isEmpty, let choice = rule(carrier, sourcePort, destinationPort) { return choice }
    switch carrier {
    case .udp:
      if let choice = udpChoice(destinationPort) ?? udpChoice(sourcePort) { return choice }
    case .websocket(let path?):
      if let known = webSocketPaths.first(where: { path.hasPrefix($0.prefix) }) { return known.choice }
    default:
      break
    }
    return probe(payload)
  }

  /// `choose` for a UDP datagram, the commonest payload: a run with no
  /// `--codec` and no `--decode-as` goes straight to the well-known ports.
  @inline(__always)
  func chooseUDP(sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer) -> Choice? {
    if plainUDP, let choice = udpChoice(destinationPort) ?? udpChoice(sourcePort) { return choice }
    return choose(.udp, sourcePort: sourcePort, destinationPort: destinationPort, payload: payload)
  }

  private func rule(_ carrier: Carrier, _ sourcePort: UInt16, _ destinationPort: UInt16) -> Choice? {
    let transport: DecodeAsRule.Transport
    switch carrier {
    case .udp: transport = .udp
    case .tcp, .websocket: transport = .tcp
    }
    for (rule, choice) in ruleChoices where rule.transport == transport {
      if rule.port == destinationPort || rule.port == sourcePort { return choice }
    }
    return nil
  }

  @inline(__always)
  private func udpChoice(_ port: UInt16) -> Choice? {
    udpPorts.withUnsafeBufferPointer { ports in
      for index in ports.indices where ports[index] == port { return udpChoices[index] }
      return nil
    }
  }

  /// The codec whose characteristic this is (a lower-case 128-bit UUID).
  func gattChoice(_ uuid: String) -> Choice? {
    gattUUIDs.firstIndex(of: uuid).map { gattChoices[$0] }
  }

  /// The codec whose probe is surest of a payload nothing else routed, when
  /// it is sure enough.
  func probe(_ payload: UnsafeRawBufferPointer) -> Choice? {
    let best = codecs.bestProbe(payload)
    guard best.score >= minimumProbeScore else { return nil }
    return Choice(index: best.index, why: .probe(best.score), byProbe: true)
  }

  /// Why `choice` was chosen, in words: "udp port 5005", "probe 95",
  /// "gatt 12345678…", "--decode-as udp:9000". Kept texts, not made per record.
  package func reason(_ choice: Choice) -> String {
    switch choice.why {
    case .forced: "--codec"
    case .decodeAs(let number):
      "--decode-as \(ruleChoices[number].rule.transport.rawValue):\(ruleChoices[number].rule.port)"
    case .udpPort(let port): udpPorts.firstIndex(of: port).map { udpReasons[$0] } ?? "udp port \(port)"
    case .webSocketPath(let number): "websocket \(webSocketPaths[number].prefix)"
    case .gatt(let number): gattReasons[number]
    case .probe(let score): probeReasons[min(max(score, 0), 100)]
    case .flow: "the flow's codec"
    case .bleMap: "--ble-map"
    }
  }
}
