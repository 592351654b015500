import CPcap

/// A network interface libpcap can capture on (`pcap_findalldevs`).
public struct CaptureInterface: Sendable, Hashable {
  public var name: String
  public var description: String?
  public var isUp: Bool
  public var isLoopback: Bool

  public init(name: String, description: String? = nil, isUp: Bool = true, isLoopback: Bool = false) {
    self.name = name
    self.description = description
    self.isUp = isUp
    self.isLoopback = isLoopback
  }

  /// Every interface libpcap reports, in its order (up interfaces first).
  public static func all() throws(LiveCaptureError) -> [CaptureInterface] {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    var list: UnsafeMutablePointer<pcap_if_t>?
    guard pcap_findalldevs(&list, &errorBuffer) == 0 else {
      throw LiveCaptureError(
        .other, "cannot list interfaces: \(string(fromCBuffer: errorBuffer))")
    }
    defer { pcap_freealldevs(list) }
    var interfaces: [CaptureInterface] = []
    var current = list
    while let device = current {
      let entry = device.pointee
      if let name = entry.name {
        interfaces.append(
          CaptureInterface(
            name: String(cString: name), description: entry.description.map { String(cString: $0) },
            isUp: entry.flags & UInt32(PCAP_IF_UP) != 0,
            isLoopback: entry.flags & UInt32(PCAP_IF_LOOPBACK) != 0))
      }
      current = entry.next
    }
    return interfaces
  }

  /// "lo (loopback), eth0, any" — for error messages.
  public static func summary(_ interfaces: [CaptureInterface]) -> String {
    guard !interfaces.isEmpty else { return "none (libpcap lists no interfaces)" }
    return interfaces.map { interface in
      var notes: [String] = []
      if interface.isLoopback { notes.append("loopback") }
      if !interface.isUp { notes.append("down") }
      return notes.isEmpty ? interface.name : "\(interface.name) (\(notes.joined(separator: ", ")))"
    }.joined(separator: ", ")
  }
}
