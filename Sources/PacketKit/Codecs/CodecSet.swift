/// The codecs one run of pktbench knows, and what is looked up in them per
/// message, computed once. Built at start-up (the built-in codecs, a
/// package's own, spec files) and handed to what needs it: the router, the
/// pipeline, the fuzz targets, the commands. Immutable, so any thread may
/// read it.
public final class CodecSet: Sendable {
  public let calls: [CodecCalls]
  /// The codecs, type-erased, in the order of `calls`.
  public let all: [any FrameCodec]
  /// Names in the order of `all` (a codec's `info` is a large value; hot
  /// paths must not rebuild it per packet).
  public let names: [String]
  /// Per codec, its message names in `info.messages` order: `cleanKind`
  /// answers with an index into these.
  public let messageNames: [[String]]
  /// Lower-case characteristic UUID → index in `all`: the BLE path looks
  /// one up for every ATT value.
  public let gattCharacteristics: [String: Int]
  /// UDP port → the first codec that names it (`CodecInfo.wellKnown`).
  public let wellKnownUDPPorts: [UInt16: (index: Int, port: UInt16)]
  /// WebSocket path prefixes the codecs name, longest first, with the
  /// field the path's last segment fills.
  public let wellKnownWebSocketPaths: [(prefix: String, index: Int, lastSegmentField: String?)]
  /// The codecs that `adding` replaced, each with its replacement: the
  /// fuzzer compares the two (`compare-legctrl`).
  public let replaced: [(original: any FrameCodec, replacement: any FrameCodec)]
  /// `calls` unretained, for per-message calls at +0: `calls` keeps every
  /// one alive as long as the set.
  private let unretained: [Unmanaged<CodecCalls>]

  /// No codecs at all.
  public static let empty = CodecSet([])

  public convenience init(_ calls: [CodecCalls]) {
    self.init(calls, replaced: [])
  }

  private init(_ calls: [CodecCalls], replaced: [(original: any FrameCodec, replacement: any FrameCodec)]) {
    self.calls = calls
    self.replaced = replaced
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

  /// These codecs and `added` (spec files loaded with `--spec`): one named
  /// as a codec of this set takes its place, the others come after.
  public func adding(_ added: [CodecCalls]) -> CodecSet {
    var calls = self.calls
    var replaced = self.replaced
    for codec in added {
      if let index = calls.firstIndex(where: { $0.name == codec.name }) {
        replaced.append((calls[index].codec, codec.codec))
        calls[index] = codec
      } else {
        calls.append(codec)
      }
    }
    return CodecSet(calls, replaced: replaced)
  }

  /// The codec called `name` (any case).
  public func named(_ name: String) -> (any FrameCodec)? {
    index(named: name).map { all[$0] }
  }

  /// The index in `all` of the codec called `name` (any case).
  public func index(named name: String) -> Int? {
    names.firstIndex(of: name) ?? names.firstIndex(of: name.lowercased())
  }

  /// The codec names for help texts: "rider, legctrl, rallie, falconeye".
  public var nameList: String { names.joined(separator: ", ") }

  /// "the rider, legctrl, rallie and falconeye protocols" for help texts.
  public var titleList: String {
    "the "
      + (names.count > 1
        ? names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "") : names.joined())
      + " protocols"
  }

  /// Every codec's example lines for `command`'s help, in this set's order.
  public func examples(for command: String) -> [String] {
    all.flatMap { $0.info.examples[command] ?? [] }
  }

  /// The codec whose GATT characteristic this is, if any.
  public func forCharacteristic(_ uuid: String) -> (any FrameCodec)? {
    gattCharacteristics[uuid.lowercased()].map { all[$0] }
  }

  /// Every message's craft name (or name), for "unknown message" errors.
  public var craftNames: [String] {
    all.flatMap { codec in codec.info.messages.map { $0.craftNames.first ?? $0.name } }
  }

  /// The codec and message schema a `craft` name stands for: a message's
  /// name, one of its craft names, or `codec.message`.
  public func message(forCraftName name: String) -> (codec: any FrameCodec, schema: MessageSchema)? {
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

  /// Every codec's probe score for a payload, best first (ties keep this
  /// set's order).
  public func probe(_ bytes: UnsafeRawBufferPointer) -> [(codec: any FrameCodec, score: Int)] {
    let view = ByteView(unsafeBytes: bytes)
    return all.map { ($0, $0.probe(view)) }.sorted { $0.score > $1.score }
  }

  // MARK: Per message, through the bound calls

  /// Runs `body` on codec `index`'s calls without retaining them.
  @inline(__always)
  private func withCalls<Result>(_ index: Int, _ body: (CodecCalls) -> Result) -> Result {
    unretained.withUnsafeBufferPointer { $0[index]._withUnsafeGuaranteedRef(body) }
  }

  /// The best probe score for a payload: the codec's index in `all` and its
  /// score, without allocating. Ties go to the earlier codec.
  public func bestProbe(_ bytes: UnsafeRawBufferPointer) -> (index: Int, score: Int) {
    var best = (index: 0, score: -1)
    for index in 0..<unretained.count {
      let score = withCalls(index) { $0.probe(bytes) }
      if score > best.score { best = (index, score) }
    }
    return best
  }

  /// `all[index].cleanKind(bytes)`, through `calls`.
  public func cleanKind(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Int? {
    withCalls(index) { $0.cleanKind(bytes) }
  }

  /// `all[index].cleanFields(bytes, into: &fields)`, through `calls`.
  public func cleanFields(_ index: Int, _ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields)
    -> Bool
  {
    withCalls(index) { $0.cleanFields(bytes, &fields) }
  }

  /// `all[index].decodeFrame(bytes)`, through `calls`.
  public func decodeFrame(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> FrameDecode {
    withCalls(index) { $0.decodeFrame(bytes) }
  }

  /// `all[index].selfCheck(bytes)`, through `calls` (compiled for the codec's types).
  public func selfCheck(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> SelfCheck {
    withCalls(index) { $0.selfCheck(bytes) }
  }
}
