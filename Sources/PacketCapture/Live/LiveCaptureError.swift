/// Why a live capture could not start or go on, in one line for a person,
/// with what to do about it.
public struct LiveCaptureError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// The process may not open packet sockets (not root, no CAP_NET_RAW).
    case permissionDenied
    /// No interface has that name; `available` lists the ones that exist.
    case noSuchInterface(available: [String])
    case interfaceDown
    case badFilter
    case other
  }

  public var kind: Kind
  public var text: String

  public init(_ kind: Kind, _ text: String) {
    self.kind = kind
    self.text = text
  }

  public var description: String { text }

  /// The one line that tells a user how to get the privilege.
  public static let privilegeHint =
    "run as root, or give pktbench the capability once: "
    + "sudo setcap cap_net_raw,cap_net_admin=eip $(which pktbench)"
}
