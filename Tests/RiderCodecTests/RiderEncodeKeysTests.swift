import Foundation
import PacketKit
import RiderCodec
import Testing

/// The encoder writes each key once: an extra key that repeats a written
/// one is refused (unless forced), however many keys come before it.
@Suite struct RiderEncodeKeysTests {
  static func extras(_ count: Int) -> [RiderExtraKey] {
    (0..<count).map { RiderExtraKey("extra_\($0)", .integer(Int64($0))) }
  }

  static func refusal(_ message: RiderMessage) -> EncodeError? {
    do {
      _ = try RiderCodec().encode(message)
      return nil
    } catch {
      return error
    }
  }

  @Test func manyDistinctKeysAreWrittenOnceEach() throws {
    for count in [0, 1, 13, 14, 30] {
      let drive = RiderDrive(left: 10, right: -10, timestamp: 1.5, extraKeys: Self.extras(count))
      let bytes = try RiderCodec().encode(.drive(drive))
      let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
      #expect(object.count == 3 + count)
      #expect(object["extra_\(max(count - 1, 0))"] != nil || count == 0)
      #expect(bytes.last == UInt8(ascii: "}"))
    }
  }

  @Test func aRepeatedKeyIsRefusedWhereverItComes() {
    // A known key, an early extra, and extras past the first sixteen keys.
    for (count, repeated) in [
      (0, "left"), (3, "extra_1"), (20, "extra_2"), (20, "extra_19"), (30, "timestamp"),
    ] {
      let extras = Self.extras(count) + [RiderExtraKey(repeated, .integer(1))]
      let drive = RiderDrive(left: 10, right: -10, timestamp: 1.5, extraKeys: extras)
      let error = Self.refusal(.drive(drive))
      #expect(error?.code == "duplicate-key", "\(count) extras, then \(repeated)")
      #expect(error?.field == repeated)
    }
  }

  @Test func forcedRepeatsAreWritten() throws {
    let extras = Self.extras(20) + [RiderExtraKey("extra_2", .integer(7))]
    let drive = RiderDrive(left: 10, right: -10, timestamp: 1.5, extraKeys: extras)
    let bytes = try RiderCodec().craftBytes(.drive(drive), values: CraftValues(force: true))
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.components(separatedBy: "\"extra_2\":").count == 3)
  }
}
