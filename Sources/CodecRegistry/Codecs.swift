import FalconEyeCodec
import LegCtrlCodec
import PacketKit
import RallieCodec
import RiderCodec

/// The codecs pktbench knows. Adding a codec: a folder under Plugins/, a
/// target in Package.swift, and one line here.
public enum Codecs {
  public static let all: [any FrameCodec] = calls.map(\.codec)

  /// The built-in codecs, each with its hot-path calls bound to its own
  /// type (made here, where the concrete types are known, so they are
  /// specialised).
  static let builtIn: [CodecCalls] = [
    .bound(RiderCodec()),
    .bound(LegCtrlCodec()),
    .bound(RallieCodec()),
    .bound(FalconEyeCodec()),
  ]

  /// Codecs registered for this run (spec files), before anything reads
  /// the list: the CLI registers them before it parses the command line.
  nonisolated(unsafe) private static var registered: [CodecCalls] = []

  /// Adds a codec for this run; one named as a built-in replaces it in
  /// its place. Must come before the first use of any list here.
  public static func register(_ codec: some FrameCodec) {
    registered.append(.bound(codec))
  }

  /// The built-in codecs and the registered ones, a registered one in the
  /// place of the built-in of its name.
  static let calls: [CodecCalls] = {
    var calls = builtIn
    for added in registered {
      if let index = calls.firstIndex(where: { $0.codec.name == added.codec.name }) {
        calls[index] = added
      } else {
        calls.append(added)
      }
    }
    return calls
  }()

  /// The built-in codecs that registered ones replaced, by name: the
  /// fuzzer compares each with its replacement.
  public static let replaced: [(builtIn: any FrameCodec, replacement: any FrameCodec)] = registered.compactMap
  {
    added in
    builtIn.first { $0.codec.name == added.codec.name }.map { ($0.codec, added.codec) }
  }

  /// `calls` unretained, for per-message calls at +0: `calls` keeps every
  /// one alive for the life of the process.
  private static let unretained: [Unmanaged<CodecCalls>] = calls.map { .passUnretained($0) }

  /// Runs `body` on codec `index`'s calls without retaining them.
  @inline(__always)
  private static func withCalls<Result>(_ index: Int, _ body: (CodecCalls) -> Result) -> Result {
    unretained.withUnsafeBufferPointer { $0[index]._withUnsafeGuaranteedRef(body) }
  }

  /// Names in the order of `all`, computed once (a codec's `info` is a
  /// large value; hot paths must not rebuild it per packet).
  public static let names: [String] = all.map(\.info.name)

  /// Lower-case characteristic UUID → index in `all`, computed once: the
  /// BLE path looks one up for every ATT value.
  public static let gattCharacteristics: [String: Int] = {
    var map: [String: Int] = [:]
    for (index, codec) in all.enumerated() {
      for uuid in codec.info.gattCharacteristics where map[uuid] == nil { map[uuid] = index }
    }
    return map
  }()

  /// UDP port → the first codec that names it (`CodecInfo.wellKnown`).
  public static let wellKnownUDPPorts: [UInt16: (index: Int, port: UInt16)] = {
    var map: [UInt16: (index: Int, port: UInt16)] = [:]
    for (index, codec) in all.enumerated() {
      for case .udp(let port) in codec.info.wellKnown where map[port] == nil { map[port] = (index, port) }
    }
    return map
  }()

  /// WebSocket path prefixes the codecs name, longest first, with the
  /// field the path's last segment fills.
  public static let wellKnownWebSocketPaths: [(prefix: String, index: Int, lastSegmentField: String?)] =
    all.enumerated().flatMap { index, codec in
      codec.info.wellKnown.compactMap { endpoint -> (String, Int, String?)? in
        guard case .webSocket(let prefix, let field) = endpoint else { return nil }
        return (prefix, index, field)
      }
    }.sorted { $0.0.count > $1.0.count }

  /// Every codec's example lines for `command`'s help, in registry order.
  public static func examples(for command: String) -> [String] {
    all.flatMap { $0.info.examples[command] ?? [] }
  }

  /// "the rider, legctrl, rallie and falconeye protocols" for help texts.
  public static var titleList: String {
    "the "
      + (names.count > 1
        ? names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "") : names.joined())
      + " protocols"
  }

  /// The codec names for help texts: "rider, legctrl, rallie, falconeye".
  public static var nameList: String { names.joined(separator: ", ") }

  /// The codec whose GATT characteristic this is, if any.
  public static func forCharacteristic(_ uuid: String) -> (any FrameCodec)? {
    gattCharacteristics[uuid.lowercased()].map { all[$0] }
  }

  /// Every message's craft name (or name), for "unknown message" errors.
  public static var craftNames: [String] {
    all.flatMap { codec in codec.info.messages.map { $0.craftNames.first ?? $0.name } }
  }

  public static func named(_ name: String) -> (any FrameCodec)? {
    index(named: name).map { all[$0] }
  }

  /// The index in `all` of the codec called `name` (any case).
  public static func index(named name: String) -> Int? {
    names.firstIndex(of: name) ?? names.firstIndex(of: name.lowercased())
  }

  /// Per codec, its message names in `info.messages` order, computed once:
  /// `cleanKind` answers with an index into these.
  public static let messageNames: [[String]] = all.map { $0.info.messages.map(\.name) }

  /// The best probe score for a payload: the codec's index in `all` and its
  /// score, without allocating. Ties go to the earlier codec.
  public static func bestProbe(_ bytes: UnsafeRawBufferPointer) -> (index: Int, score: Int) {
    var best = (index: 0, score: -1)
    for index in 0..<unretained.count {
      let score = withCalls(index) { $0.probe(bytes) }
      if score > best.score { best = (index, score) }
    }
    return best
  }

  /// `all[index].cleanKind(bytes)`, through `calls`.
  public static func cleanKind(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Int? {
    withCalls(index) { $0.cleanKind(bytes) }
  }

  /// `all[index].cleanFields(bytes, into: &fields)`, through `calls`.
  public static func cleanFields(_ index: Int, _ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields)
    -> Bool
  {
    withCalls(index) { $0.cleanFields(bytes, &fields) }
  }

  /// `all[index].decodeFrame(bytes)`, through `calls`.
  public static func decodeFrame(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> FrameDecode {
    withCalls(index) { $0.decodeFrame(bytes) }
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
    all.map { ($0, $0.probe(bytes)) }.sorted { $0.score > $1.score }  // ties keep registry order
  }
}
