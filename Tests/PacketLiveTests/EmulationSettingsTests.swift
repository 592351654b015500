import BuiltinCodecs
import PacketDecode
import PacketKit
import Testing

@testable import PacketLive

/// What a program that plays a device through PacketLive is told when the
/// device cannot be played: the sentences `emulate` says, now said by the
/// library, and the seed a model that wants one is given.
@Suite struct EmulationSettingsTests {
  /// One byte, one field, and no device model.
  struct Level: FrameCodec {
    var info: CodecInfo {
      CodecInfo(
        name: "level", title: "a level", transport: "test",
        messages: [MessageSchema("level", summary: "a level", direction: .either, fields: [])])
    }
    func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<UInt8> {
      Decoded(message: bytes[0], messageName: "level", fields: [])
    }
    func encode(_ message: UInt8) throws(EncodeError) -> [UInt8] { [message] }
    func probe(_ bytes: ByteView) -> Int { 0 }
    func message(_ kind: String, from values: CraftValues) throws(EncodeError) -> UInt8 { 0 }
    func kind(of message: UInt8) -> String { "level" }
  }

  /// The one line a CommandFailure says; nil when nothing was thrown.
  static func failure(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return (error as? CommandFailure)?.message ?? "not a CommandFailure: \(error)"
    }
  }

  @Test func anUnknownCodecIsNamedWithTheKnownOnes() {
    let codecs = BuiltinCodecs.set
    #expect(
      Self.failure { _ = try EmulationSettings(codec: "nosuch", codecs: codecs) }
        == "unknown codec 'nosuch'; the codecs are \(codecs.nameList)")
  }

  @Test func aCodecWithoutADeviceModelNamesTheCodecsWithOne() {
    let codecs = CodecSet(BuiltinCodecs.calls + [.bound(Level())])
    let modelled = codecs.all.filter { $0 is any DeviceBehaviour }.map(\.info.name)
    #expect(modelled.count == 4)
    #expect(
      Self.failure { _ = try EmulationSettings(codec: "level", codecs: codecs) }
        == "level has no device model to emulate; these do: \(modelled.joined(separator: ", "))")
  }

  @Test func theModelsOwnRefusalIsTheSentence() {
    #expect(
      Self.failure {
        _ = try EmulationSettings(codec: "rider", settings: ["speed": "1"], codecs: BuiltinCodecs.set)
      }
        == "the rider robot takes no settings, but --speed was given")
  }

  @Test func aModelThatTakesASeedGetsOneUnlessGiven() throws {
    let drawn = try EmulationSettings(codec: "falconeye", codecs: BuiltinCodecs.set)
    #expect(drawn.settings["seed"].flatMap(UInt64.init).map { $0 > 0 } == true)
    let given = try EmulationSettings(codec: "falconeye", settings: ["seed": "7"], codecs: BuiltinCodecs.set)
    #expect(given.settings["seed"] == "7")
    #expect(try EmulationSettings(codec: "rider", codecs: BuiltinCodecs.set).settings.isEmpty)
  }

  @Test func listenAddressesAsListenTakesThem() throws {
    let address = try ListenAddress.parse("udp:127.0.0.1:9000")
    #expect(address.kind == .udp && address.host == "127.0.0.1" && address.port == 9000)
    #expect(try ListenAddress.parse("ws:[::1]:8080").display == "ws:[::1]:8080")
    #expect(
      Self.failure { _ = try ListenAddress.parse("tcp:9000") }
        == "'tcp:9000': 'tcp' is not udp or ws; \(ListenAddress.usage)")
  }
}
