import Foundation
import PacketCapture
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// libpcap live capture: interface listing and the errors a user sees.
@Suite struct LiveCaptureTests {
  static var isRoot: Bool { getuid() == 0 }

  @Test func interfacesIncludeLoopback() throws {
    let interfaces = try CaptureInterface.all()
    if FileManager.default.fileExists(atPath: "/sys/class/net/lo") {
      #expect(interfaces.contains { $0.name == "lo" && $0.isLoopback })
    }
    #expect(CaptureInterface.summary([]).contains("none"))
    #expect(
      CaptureInterface.summary([.init(name: "lo", isLoopback: true), .init(name: "eth0")])
        == "lo (loopback), eth0")
  }

  @Test(.enabled(if: isRoot, "pcap_activate reports a missing interface only with the privilege to try"))
  func unknownInterfaceNamesTheOthers() {
    do {
      _ = try LiveCapture(interface: "nosuchif0")
      Issue.record("opened an interface that does not exist")
    } catch {
      guard case .noSuchInterface(let available) = error.kind else {
        Issue.record("wrong error: \(error)")
        return
      }
      #expect(!available.isEmpty)
      #expect(error.text.contains("nosuchif0"))
      #expect(!error.text.contains("\n"))
    }
  }

  @Test(
    .enabled(if: isRoot && FileManager.default.fileExists(atPath: "/sys/class/net/lo"), "needs root and lo"))
  func loopbackOpensAndABadFilterIsRefused() throws {
    let capture = try LiveCapture(interface: "lo")
    #expect(capture.linkType == 1)  // Linux loopback is DLT_EN10MB
    try capture.setFilter("udp port 9")
    #expect(throws: LiveCaptureError.self) { try capture.setFilter("udp port nonsense and") }
    // A quiet poll returns after its timeout with nothing.
    let started = Date()
    let delivered = try capture.poll(timeoutMilliseconds: 50) { _, _ in }
    #expect(delivered >= 0)
    #expect(Date().timeIntervalSince(started) < 5)
  }
}
