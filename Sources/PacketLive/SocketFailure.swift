import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One line for a socket failure, saying what a person can do about it.
package enum SocketFailure {
  /// The errno behind a NIO error, if there is one.
  static func errnoCode(_ error: Error) -> Int32? {
    if let io = error as? IOError { return io.errnoCode }
    if let connection = error as? NIOConnectionError {
      for failure in connection.connectionErrors {
        if let code = errnoCode(failure.error) { return code }
      }
      if let dns = connection.dnsAAAAError ?? connection.dnsAError { return errnoCode(dns) }
    }
    return nil
  }

  /// Why binding `what` failed.
  package static func bind(_ error: Error, what: String) -> String {
    switch errnoCode(error) {
    case EADDRINUSE:
      return
        "cannot listen on \(what): the port is already in use (another program has it; pick another port)"
    case EACCES:
      return
        "cannot listen on \(what): permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
    case EADDRNOTAVAIL:
      return "cannot listen on \(what): no interface of this machine has that address"
    case EAFNOSUPPORT:
      return "cannot listen on \(what): this machine has no support for that address family"
    default:
      return "cannot listen on \(what): \(describe(error))"
    }
  }

  /// Why reaching `what` failed.
  package static func connect(_ error: Error, what: String) -> String {
    switch errnoCode(error) {
    case ECONNREFUSED: return "\(what): connection refused (nothing listens there)"
    case ENETUNREACH: return "\(what): network unreachable (no route to that network)"
    case EHOSTUNREACH: return "\(what): host unreachable"
    case ETIMEDOUT: return "\(what): timed out"
    default: break
    }
    return "\(what): \(describe(error))"
  }

  package static func describe(_ error: Error) -> String {
    if let code = errnoCode(error) { return String(cString: strerror(code)) }
    if let connection = error as? NIOConnectionError {
      if connection.dnsAError != nil || connection.dnsAAAAError != nil {
        return "cannot resolve host '\(connection.host)'"
      }
      return "cannot connect to \(connection.host):\(connection.port)"
    }
    if let channel = error as? ChannelError {
      switch channel {
      case .connectTimeout: return "connection timed out"
      case .ioOnClosedChannel, .alreadyClosed: return "the connection is closed"
      case .eof: return "the peer closed the connection"
      default: return "\(channel)"
      }
    }
    return "\(error)"
  }
}

/// `address:port` as the rest of pktbench writes endpoints (`[v6]:port`),
/// with IPv4-mapped IPv6 addresses shown as the IPv4 address they are.
enum EndpointText {
  package static func of(_ address: SocketAddress?) -> String? {
    guard let address, let ip = address.ipAddress, let port = address.port else { return nil }
    return of(ip: ip, port: port)
  }

  package static func of(ip: String, port: Int) -> String {
    var host = ip
    if host.lowercased().hasPrefix("::ffff:"), host.contains(".") { host = String(host.dropFirst(7)) }
    return HostPort.join(host, port)
  }
}
