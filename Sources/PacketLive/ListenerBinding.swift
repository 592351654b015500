import NIOCore
import PacketDecode

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which sockets a listen address needs. An address given is bound as it
/// is ([::] alone is dual-stack there). No address: 0.0.0.0 and [::] as two
/// sockets, the IPv6 one IPv6-only, so each family has its own socket
/// whatever net.ipv6.bindv6only says; a machine without IPv6 keeps IPv4.
enum ListenerBinding {
  typealias BindOne = (_ address: SocketAddress, _ ipv6Only: Bool) throws -> Channel

  package static func bind(_ address: ListenAddress, _ bindOne: BindOne) throws(CommandFailure) -> [Channel] {
    if let host = address.host {
      let socketAddress: SocketAddress
      do {
        socketAddress = try SocketAddress(ipAddress: host, port: address.port)
      } catch {
        do {
          socketAddress = try SocketAddress.makeAddressResolvingHost(host, port: address.port)
        } catch {
          // A listen address names this machine: one that names no host
          // at all is the command line's mistake.
          throw CommandFailure(
            "cannot listen on \(address.display): cannot resolve host '\(host)'", status: ExitStatus.usage)
        }
      }
      do {
        return [try bindOne(socketAddress, false)]
      } catch {
        throw CommandFailure(SocketFailure.bind(error, what: address.display), status: ExitStatus.failed)
      }
    }
    let ipv4: Channel
    do {
      ipv4 = try bindOne(try SocketAddress(ipAddress: "0.0.0.0", port: address.port), false)
    } catch {
      throw CommandFailure(SocketFailure.bind(error, what: address.display), status: 1)
    }
    do {
      return [ipv4, try bindOne(try SocketAddress(ipAddress: "::", port: address.port), true)]
    } catch {
      let code = SocketFailure.errnoCode(error)
      if code == EAFNOSUPPORT || code == EADDRNOTAVAIL { return [ipv4] }
      _ = try? ipv4.close().wait()
      throw CommandFailure(SocketFailure.bind(error, what: "\(address.display) (IPv6)"), status: 1)
    }
  }
}
