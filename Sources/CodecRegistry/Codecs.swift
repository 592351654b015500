import FalconEyeCodec
import LegCtrlCodec
import PacketKit
import RallieCodec
import RiderCodec

/// The codecs this run of pktbench knows, as one process-wide `CodecSet`:
/// the built-in four unless the program that runs the command line installs
/// others. Installed once, before any command runs and before any thread
/// reads it; read-only after that.
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

  /// Installs a whole set.
  public static func install(_ set: CodecSet) {
    current = set
  }

  /// Adds codecs to the installed ones for the rest of the run (spec files
  /// loaded with `--spec`), as `CodecSet.adding` does.
  public static func add(_ added: [CodecCalls]) {
    current = current.adding(added)
  }

  nonisolated(unsafe) private static var current = CodecSet(builtins)

  /// The installed set.
  public static var set: CodecSet { current }

  public static var replaced: [(original: any FrameCodec, replacement: any FrameCodec)] { current.replaced }
  public static var all: [any FrameCodec] { current.all }
  public static var calls: [CodecCalls] { current.calls }
  public static var names: [String] { current.names }
  public static var gattCharacteristics: [String: Int] { current.gattCharacteristics }
  public static var wellKnownUDPPorts: [UInt16: (index: Int, port: UInt16)] { current.wellKnownUDPPorts }
  public static var wellKnownWebSocketPaths: [(prefix: String, index: Int, lastSegmentField: String?)] {
    current.wellKnownWebSocketPaths
  }
  public static var messageNames: [[String]] { current.messageNames }
  public static func examples(for command: String) -> [String] { current.examples(for: command) }
  public static var titleList: String { current.titleList }
  public static var nameList: String { current.nameList }
  public static func forCharacteristic(_ uuid: String) -> (any FrameCodec)? {
    current.forCharacteristic(uuid)
  }
  public static var craftNames: [String] { current.craftNames }
  public static func named(_ name: String) -> (any FrameCodec)? { current.named(name) }
  public static func index(named name: String) -> Int? { current.index(named: name) }
  public static func bestProbe(_ bytes: UnsafeRawBufferPointer) -> (index: Int, score: Int) {
    current.bestProbe(bytes)
  }
  public static func cleanKind(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Int? {
    current.cleanKind(index, bytes)
  }
  public static func cleanFields(_ index: Int, _ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields)
    -> Bool
  {
    current.cleanFields(index, bytes, into: &fields)
  }
  public static func decodeFrame(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> FrameDecode {
    current.decodeFrame(index, bytes)
  }
  public static func message(forCraftName name: String) -> (codec: any FrameCodec, schema: MessageSchema)? {
    current.message(forCraftName: name)
  }
  public static func probe(_ bytes: UnsafeRawBufferPointer) -> [(codec: any FrameCodec, score: Int)] {
    current.probe(bytes)
  }
  public static func selfCheck(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> SelfCheck {
    current.selfCheck(index, bytes)
  }
}
