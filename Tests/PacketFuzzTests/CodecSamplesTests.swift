import BuiltinCodecs
import LegCtrlCodec
import PacketKit
import RallieCodec
import Testing

@testable import PacketFuzz

/// What the fuzzer starts from comes from the codecs: their reference
/// vectors, their crafted defaults, and their own way to reseal a mutant.
@Suite struct CodecSamplesTests {
  /// Every vector a plugin gives decodes, with no error, to the message it names.
  @Test(arguments: BuiltinCodecs.set.all.indices)
  func everyVectorDecodesToItsMessage(index: Int) {
    let codec = BuiltinCodecs.set.all[index]
    #expect(!codec.info.vectors.isEmpty, "\(codec.name) gives no vectors")
    for (message, bytes) in codec.info.vectors {
      switch codec.decodeFrame(bytes) {
      case .decoded(let frame): #expect(frame.message == message, "\(codec.name): \(Hex.spaced(bytes))")
      case .failed(_, let error): Issue.record("\(codec.name): \(Hex.spaced(bytes)): \(error.code)")
      }
    }
  }

  /// The parsers' seeds carry the codecs' payloads: a datagram to the
  /// codec's own port, an ATT value of a codec that names characteristics.
  @Test func parserSeedsCarryTheCodecsPayloads() {
    let payloads = SeedPayloads(BuiltinCodecs.set)
    // The servo golden vector of the protocol reference, §2.
    let servo: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    #expect(payloads.att.contains(servo))
    #expect(payloads.udp.contains { $0.port == 5005 && $0.bytes.first == UInt8(ascii: "{") })
    var rng = SplitMix64(seed: 3)
    let write = payloads.attWrite(&rng)
    // ACL length = L2CAP header (4) + ATT opcode and handle (3) + value.
    #expect(Int(write[2]) | Int(write[3]) << 8 == write.count - 4)
    #expect(write[8] == 0x52 && payloads.att.contains(Array(write[11...])))
  }

  /// With no codec at all the parsers still have something to carry.
  @Test func noCodecsStillSeedTheParsers() {
    let payloads = SeedPayloads(CodecSet.empty)
    #expect(!payloads.udp.isEmpty && !payloads.att.isEmpty)
    #expect(
      FuzzTargets(codecs: .empty).parserTargets().count == 7, "six capture parsers and the display filter")
  }

  /// LegCtrl reseals its length byte, Rallie its check under either variant:
  /// a mutant that grew a byte decodes again after resealing.
  @Test func codecsResealTheirOwnFrames() throws {
    var servo: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    servo.append(0x00)
    #expect(throws: DecodeError.self) { try LegCtrlCodec().decode(servo) }
    LegCtrlCodec().reseal(&servo, choice: 0)
    #expect(servo[2] == 3)
    #expect(throws: Never.self) { try LegCtrlCodec().decode(servo) }

    for choice: UInt64 in [0, 1] {
      var command: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x00]
      #expect(throws: DecodeError.self) { try RallieCodec().decode(command) }
      RallieCodec().reseal(&command, choice: choice)
      // The reference's checks for this command: XOR 4E, MODBUS-low 41.
      #expect(command[9] == (choice == 0 ? 0x4E : 0x41))
      #expect(throws: Never.self) { try RallieCodec().decode(command) }
    }
  }
}
