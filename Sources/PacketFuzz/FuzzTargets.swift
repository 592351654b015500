import PacketKit

/// The targets `pktbench fuzz` knows for a set of codecs: each codec, each
/// codec that replaced another against the one it replaced, and the capture
/// parsers, whose seeds carry the codecs' own payloads.
public struct FuzzTargets: Sendable {
  public let codecs: CodecSet

  public init(codecs: CodecSet) {
    self.codecs = codecs
  }

  public func codecTargets() -> [FuzzTarget] {
    codecs.calls.map { CodecFuzzTarget($0) }
      + codecs.replaced.map { Self.compare($0.original, $0.replacement) }
  }

  /// A spec codec against the built-in it replaced (`compare-legctrl`).
  private static func compare(_ reference: any FrameCodec, _ candidate: any FrameCodec) -> FuzzTarget {
    func opened<Reference: FrameCodec>(_ reference: Reference) -> FuzzTarget {
      func pair<Candidate: FrameCodec>(_ candidate: Candidate) -> FuzzTarget {
        CompareFuzzTarget(reference: reference, candidate: candidate)
      }
      return pair(candidate)
    }
    return opened(reference)
  }

  /// The parsers: whole pcap/pcapng files down through TCP, TCP
  /// reassembly on its own, the WebSocket decoder, HCI/L2CAP/ATT, btsnoop
  /// and Apple PacketLogger files, and the display filter's language.
  public func parserTargets() -> [FuzzTarget] {
    let payloads = SeedPayloads(codecs)
    return [
      PcapFuzzTarget(payloads: payloads), TCPFuzzTarget(), WebSocketFuzzTarget(),
      HCIFuzzTarget(payloads: payloads), BtsnoopFuzzTarget(), PacketLoggerFuzzTarget(payloads: payloads),
      DisplayFilterFuzzTarget(),
    ]
  }

  public func all() -> [FuzzTarget] {
    codecTargets() + parserTargets()
  }

  public var names: [String] { all().map(\.name) }

  public func named(_ name: String) -> FuzzTarget? {
    all().first { $0.name == name.lowercased() }
  }

  /// The targets of these names, in their order (unknown ones left out):
  /// one set, built once (each `named(_:)` builds them all).
  public func named(_ names: [String]) -> [FuzzTarget] {
    let targets = all()
    return names.compactMap { name in targets.first { $0.name == name.lowercased() } }
  }
}
