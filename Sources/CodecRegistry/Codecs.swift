import FalconEyeCodec
import LegCtrlCodec
import PacketKit
import RallieCodec
import RiderCodec

/// The codecs this run of pktbench knows: the built-in four unless the
/// program that runs the command line installs others (`Pktbench.main(codecs:)`
/// in a package of one's own, or spec files loaded with `--spec`). Installed
/// once, before any command runs and before any thread reads it; read-only
/// after that.
public enum Codecs {
  /// The codecs this repository ships, each bound to its concrete type here.
  public static var builtins: [CodecCalls] {
    [.bound(RiderCodec()), .bound(LegCtrlCodec()), .bound(RallieCodec()), .bound(FalconEyeCodec())]
  }

  /// Replaces the codecs for the rest of the run. Call it before anything
  /// reads them (a command, a thread): they are not guarded against change.
  public static func install(_ calls: [CodecCalls]) {
    current = CodecSet(calls)
  }

  /// Adds codecs to the installed ones for the rest of the run (spec files
  /// loaded with `--spec`): one named as an installed codec takes its
  /// place, the others come after. Call it before anything reads them, as
  /// `install`.
  public static func add(_ added: [CodecCalls]) {
    var calls = current.calls
    for codec in added {
      if let index = calls.firstIndex(where: { $0.name == codec.name }) {
        replacedPairs.append((calls[index].codec, codec.codec))
        calls[index] = codec
      } else {
        calls.append(codec)
      }
    }
    current = CodecSet(calls)
  }

  /// The codecs that added ones replaced, each with its replacement: the
  /// fuzzer compares the two (`compare-legctrl`).
  public static var replaced: [(original: any FrameCodec, replacement: any FrameCodec)] { replacedPairs }

  nonisolated(unsafe) private static var current = CodecSet(builtins)
  nonisolated(unsafe) private static var replacedPairs: [(any FrameCodec, any FrameCodec)] = []

  public static var all: [any FrameCodec] { current.all }
  public static var calls: [CodecCalls] { current.calls }

  /// Runs `body` on codec `index`'s calls without retaining them.
  @inline(__always)
  private static func withCalls<Result>(_ index: Int, _ body: (CodecCalls) -> Result) -> Result {
    current.unretained.withUnsafeBufferPointer { $0[index]._withUnsafeGuaranteedRef(body) }
  }

  /// Names in the order of `all`, computed once (a codec's `info` is a
  /// large value; hot paths must not rebuild it per packet).
  public static var names: [String] { current.names }

  /// Lower-case characteristic UUID → index in `all`, computed once: the
  /// BLE path looks one up for every ATT value.
  public static var gattCharacteristics: [String: Int] { current.gattCharacteristics }

  /// UDP port → the first codec that names it (`CodecInfo.wellKnown`).
  public static var wellKnownUDPPorts: [UInt16: (index: Int, port: UInt16)] { current.wellKnownUDPPorts }

  /// WebSocket path prefixes the codecs name, longest first, with the
  /// field the path's last segment fills.
  public static var wellKnownWebSocketPaths: [(prefix: String, index: Int, lastSegmentField: String?)] {
    current.wellKnownWebSocketPaths
  }

  /// Per codec, its message names in `info.messages` order, computed once:
  /// `cleanKind` answers with an index into these.
  public static var messageNames: [[String]] { current.messageNames }

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

  /// The best probe score for a payload: the codec's index in `all` and its
  /// score, without allocating. Ties go to the earlier codec.
  public static func bestProbe(_ bytes: UnsafeRawBufferPointer) -> (index: Int, score: Int) {
    var best = (index: 0, score: -1)
    for index in 0..<current.unretained.count {
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
    let view = ByteView(unsafeBytes: bytes)
    return all.map { ($0, $0.probe(view)) }.sorted { $0.score > $1.score }  // ties keep registry order
  }

  /// `all[index].selfCheck(bytes)`, through `calls` (compiled for the codec's types).
  public static func selfCheck(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> SelfCheck {
    withCalls(index) { $0.selfCheck(bytes) }
  }
}

/// One installed set of codecs and what is looked up in it per message,
/// computed once.
final class CodecSet: @unchecked Sendable {
  let calls: [CodecCalls]
  let all: [any FrameCodec]
  /// `calls` unretained, for per-message calls at +0: `calls` keeps every
  /// one alive as long as the set.
  let unretained: [Unmanaged<CodecCalls>]
  let names: [String]
  let gattCharacteristics: [String: Int]
  let wellKnownUDPPorts: [UInt16: (index: Int, port: UInt16)]
  let wellKnownWebSocketPaths: [(prefix: String, index: Int, lastSegmentField: String?)]
  let messageNames: [[String]]

  init(_ calls: [CodecCalls]) {
    self.calls = calls
    all = calls.map(\.codec)
    unretained = calls.map { .passUnretained($0) }
    let infos = all.map(\.info)
    names = infos.map(\.name)
    var gatt: [String: Int] = [:]
    var ports: [UInt16: (index: Int, port: UInt16)] = [:]
    for (index, info) in infos.enumerated() {
      for uuid in info.gattCharacteristics where gatt[uuid] == nil { gatt[uuid] = index }
      for case .udp(let port) in info.wellKnown where ports[port] == nil { ports[port] = (index, port) }
    }
    gattCharacteristics = gatt
    wellKnownUDPPorts = ports
    wellKnownWebSocketPaths = infos.enumerated().flatMap { index, info in
      info.wellKnown.compactMap { endpoint -> (String, Int, String?)? in
        guard case .webSocket(let prefix, let field) = endpoint else { return nil }
        return (prefix, index, field)
      }
    }.sorted { $0.0.count > $1.0.count }
    messageNames = infos.map { $0.messages.map(\.name) }
  }
}
