/// An address and port: one end of a UDP exchange or TCP connection.
public struct Endpoint: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var address: IPAddress
  public var port: UInt16

  public init(address: IPAddress, port: UInt16) {
    self.address = address
    self.port = port
  }

  /// "10.0.0.1:5005", or "[::1]:5005" so the port stays readable after an IPv6 address.
  public var description: String {
    address.endpointDescription(port: port)
  }

  public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
    (lhs.address, lhs.port) < (rhs.address, rhs.port)
  }
}
