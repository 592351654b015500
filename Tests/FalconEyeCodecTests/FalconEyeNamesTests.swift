import PacketKit
import Testing

@testable import FalconEyeCodec

/// The kinds and joint types are found by their wire names exactly as
/// `init(rawValue:)` finds them, and nothing else is.
@Suite struct FalconEyeNamesTests {
  static let misses = ["", "Head", "head ", "camera", "cameraFrameX", "leftShoulders", "poseBroadcast\u{0}"]

  @Test func kindsByName() {
    for kind in FalconEyeKind.allCases { #expect(FalconEyeKind.named(kind.rawValue) == kind) }
    for name in Self.misses + FalconEyeJointType.allCases.map(\.rawValue) {
      #expect(FalconEyeKind.named(name) == FalconEyeKind(rawValue: name), "\(name)")
    }
  }

  @Test func jointTypesByName() {
    for joint in FalconEyeJointType.allCases { #expect(FalconEyeJointType.named(joint.rawValue) == joint) }
    for name in Self.misses + FalconEyeKind.allCases.map(\.rawValue) {
      #expect(FalconEyeJointType.named(name) == FalconEyeJointType(rawValue: name), "\(name)")
    }
    // A name longer than a String holds in itself (16 bytes and more).
    #expect(FalconEyeJointType.named("rightShoulderXXXX") == nil)
  }
}
