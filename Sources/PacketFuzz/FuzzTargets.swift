import CodecRegistry
import PacketKit

/// The targets `pktbench fuzz` knows: every codec in the registry.
public enum FuzzTargets {
  public static func codecTargets() -> [FuzzTarget] {
    Codecs.calls.map { CodecFuzzTarget($0) } + Codecs.replaced.map { compare($0.original, $0.replacement) }
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

  /// The capture parsers: whole pcap/pcapng files down through TCP, TCP
  /// reassembly on its own, the WebSocket decoder, HCI/L2CAP/ATT, and
  /// btsnoop and Apple PacketLogger files.
  public static func parserTargets() -> [FuzzTarget] {
    [
      PcapFuzzTarget(), TCPFuzzTarget(), WebSocketFuzzTarget(), HCIFuzzTarget(), BtsnoopFuzzTarget(),
      PacketLoggerFuzzTarget(),
    ]
  }

  public static func all() -> [FuzzTarget] {
    codecTargets() + parserTargets()
  }

  public static var names: [String] { all().map(\.name) }

  public static func named(_ name: String) -> FuzzTarget? {
    all().first { $0.name == name.lowercased() }
  }

  /// The targets of these names, in their order (unknown ones left out):
  /// one set, built once (each `named(_:)` builds them all).
  public static func named(_ names: [String]) -> [FuzzTarget] {
    let targets = all()
    return names.compactMap { name in targets.first { $0.name == name.lowercased() } }
  }
}
