import Foundation
import PacketKit
import RiderCodec
import Testing

/// `craft`: defaults, joystick mixing, range refusals and --force.
@Suite struct RiderCraftTests {
  let codec = RiderCodec()

  func text(_ message: String, _ values: [String: FieldValue], force: Bool = false) throws -> String {
    String(decoding: try codec.craft(message, values: CraftValues(values, force: force)), as: UTF8.self)
  }

  func drive(_ values: [String: FieldValue], force: Bool = false) throws -> RiderDrive? {
    let message = try codec.message("drive", from: CraftValues(values, force: force))
    guard case .drive(let drive) = message else { return nil }
    return drive
  }

  @Test func craftsTheDriveVector() throws {
    let values: [String: FieldValue] = [
      "left": .integer(50), "right": .integer(-50), "timestamp": .number(1.5),
    ]
    #expect(try text("drive", values) == #"{"left":50,"right":-50,"timestamp":1.5}"#)
  }

  @Test func leftAndRightDefaultToZero() throws {
    #expect(try text("drive", ["timestamp": .number(1.5)]) == #"{"left":0,"right":0,"timestamp":1.5}"#)
  }

  @Test func timestampDefaultsToNow() throws {
    let before = Date().timeIntervalSince1970
    let crafted = try drive([:])
    let after = Date().timeIntervalSince1970
    let timestamp = try #require(crafted?.timestamp)
    #expect(timestamp >= before && timestamp <= after)
  }

  // Expected values from Python, mirroring the app's mixing:
  //   def mix(x, y):
  //       l = 100*y + 100*x; r = 100*y - 100*x; m = max(abs(l), abs(r))
  //       if m > 100: f = 100/m; l, r = l*f, r*f
  //       return l, r
  //   mix(0.3, 1.0)    -> (100.0, 53.84615384615385)
  //   mix(-1.0, 0.0)   -> (-100.0, 100.0)
  //   mix(0.5, 0.5)    -> (100.0, 0.0)
  //   mix(1.0, 1.0)    -> (100.0, 0.0)
  //   mix(-0.25, -0.8) -> (-100.0, -52.38095238095238)
  //   mix(0.5, 0.0)    -> (50.0, -50.0)
  //   mix(1.5, 0.0)    -> (100.0, -100.0)
  @Test(arguments: [
    (0.3, 1.0, 100.0, 53.84615384615385), (-1.0, 0.0, -100.0, 100.0), (0.5, 0.5, 100.0, 0.0),
    (1.0, 1.0, 100.0, 0.0), (-0.25, -0.8, -100.0, -52.38095238095238),
  ])
  func joystickMixesAsTheApp(x: Double, y: Double, left: Double, right: Double) throws {
    let crafted = try drive(["x": .number(x), "y": .number(y), "timestamp": .integer(1)])
    #expect(crafted?.left == left)
    #expect(crafted?.right == right)
    #expect(RiderJoystick.mix(x: x, y: y) == (left, right))
  }

  @Test func joystickAxisLeftOutIsZero() throws {
    let crafted = try drive(["x": .number(0.5), "timestamp": .integer(1)])
    #expect(crafted?.left == 50)
    #expect(crafted?.right == -50)
  }

  @Test func joystickWithLeftOrRightIsRefused() {
    do {
      _ = try codec.craft("drive", values: CraftValues(["x": .number(0.1), "left": .integer(0)]))
      Issue.record("expected an error")
    } catch {
      #expect(error.code == "conflicting-fields")
      #expect(error.text.contains("x/y"))
      #expect(error.text.contains("left/right"))
    }
  }

  @Test func joystickOutOfRangeIsRefusedUnlessForced() throws {
    do {
      _ = try codec.craft("drive", values: CraftValues(["x": .number(1.5)]))
      Issue.record("expected an error")
    } catch {
      #expect(error.code == "out-of-range")
      #expect(error.field == "x")
    }
    let forced = try drive(["x": .number(1.5), "timestamp": .integer(1)], force: true)
    #expect(forced?.left == 100)
    #expect(forced?.right == -100)
  }

  @Test func motorOutOfRangeIsRefusedUnlessForced() throws {
    do {
      _ = try codec.craft("drive", values: CraftValues(["left": .integer(101)]))
      Issue.record("expected an error")
    } catch {
      #expect(error.code == "out-of-range")
      #expect(error.field == "left")
    }
    let forced = try text("drive", ["left": .integer(101), "timestamp": .integer(2)], force: true)
    #expect(forced == #"{"left":101,"right":0,"timestamp":2}"#)
  }

  @Test func encodeRefusesOutOfRangeButForcedCraftWrites() throws {
    let message = RiderMessage.drive(.init(left: -150, right: 0, timestamp: 1))
    #expect(throws: EncodeError.self) { try codec.encode(message) }
    let bytes = try codec.craftBytes(message, values: CraftValues(force: true))
    #expect(bytes == Array(#"{"left":-150,"right":0,"timestamp":1}"#.utf8))
  }

  @Test func nonFiniteIsRefusedEvenForced() {
    let message = RiderMessage.drive(.init(left: 0, right: 0, timestamp: .infinity))
    #expect(throws: EncodeError.self) { try codec.craftBytes(message, values: CraftValues(force: true)) }
  }

  @Test func duplicateExtraKeyIsRefusedUnlessForced() throws {
    let message = RiderMessage.drive(.init(left: 0, right: 0, extraKeys: [.init("left", .integer(9))]))
    #expect(throws: EncodeError.self) { try codec.encode(message) }
    let forced = try codec.craftBytes(message, values: CraftValues(force: true))
    #expect(forced == Array(#"{"left":0,"right":0,"left":9}"#.utf8))
  }

  @Test func legacyDefaultsAndDirections() throws {
    #expect(try text("legacy", [:]) == "0,0,0")
    #expect(try text("legacy", ["left": .integer(50), "right": .integer(-50)]) == "50,-50,0")
    #expect(
      try text("legacy", ["left": .integer(50), "direction": .enumeration(name: "left", raw: 1)]) == "50,0,1")
    #expect(try text("legacy", ["direction": .string("right")]) == "0,0,2")
  }

  @Test func legacyRefusalsAndForce() throws {
    #expect(throws: EncodeError.self) { try text("legacy", ["direction": .integer(7)]) }
    #expect(throws: EncodeError.self) { try text("legacy", ["left": .integer(-101)]) }
    #expect(throws: EncodeError.self) { try text("legacy", ["left": .number(2.5)]) }
    #expect(
      try text("legacy", ["direction": .integer(7), "left": .integer(-101)], force: true) == "-101,0,7")
  }

  @Test func moveCraftsWithDefaultsAndStop() throws {
    #expect(
      try text("move", ["speed": .integer(40), "direction": .integer(-20), "timestamp": .number(1.25)])
        == #"{"command":"move","speed":40,"direction":-20,"timestamp":1.25}"#)
    #expect(
      try text("move", ["command": .enumeration(name: "stop", raw: 1), "timestamp": .integer(5)])
        == #"{"command":"stop","speed":0,"direction":0,"timestamp":5}"#)
  }

  @Test func moveRefusesUnknownCommandUnlessForced() throws {
    #expect(throws: EncodeError.self) { try text("move", ["command": .string("spin")]) }
    #expect(
      try text("move", ["command": .string("spin"), "timestamp": .integer(1)], force: true)
        == #"{"command":"spin","speed":0,"direction":0,"timestamp":1}"#)
    #expect(throws: EncodeError.self) { try text("move", ["speed": .integer(120)]) }
  }

  @Test func unknownMessageIsRefused() {
    #expect(throws: EncodeError.self) { try codec.craft("fly", values: CraftValues()) }
  }
}
