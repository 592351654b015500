import PacketDecode

/// What `listen` binds: `udp:9000`, `udp:[::]:9000`, `udp:127.0.0.1:9000`,
/// `ws:8000`. Without an address it listens on every address, IPv4 and IPv6.
public struct ListenAddress: Equatable, Sendable {
  package enum Kind: String, Sendable {
    case udp, ws
  }

  package var kind: Kind
  /// nil: all addresses (0.0.0.0 and ::).
  package var host: String?
  package var port: Int

  package static let usage =
    "expected udp:PORT, udp:ADDRESS:PORT, udp:[IPv6]:PORT or ws:PORT (e.g. udp:9000, ws:8080)"

  /// The address `text` names, or one sentence saying what is wrong with it.
  public static func parse(_ text: String) throws(CommandFailure) -> ListenAddress {
    guard let colon = text.firstIndex(of: ":") else {
      throw CommandFailure("'\(text)': \(usage)")
    }
    let scheme = text[..<colon].lowercased()
    guard let kind = Kind(rawValue: scheme) else {
      throw CommandFailure("'\(text)': '\(scheme)' is not udp or ws; \(usage)")
    }
    var rest = String(text[text.index(after: colon)...])
    if rest.hasPrefix("//") { rest.removeFirst(2) }
    let (host, port) = try HostPort.split(rest, whole: text, defaultPort: nil)
    return ListenAddress(kind: kind, host: host, port: port)
  }

  /// As `parse` takes it: `udp:9000`, `ws:[::1]:8080`.
  public var display: String {
    guard let host else { return "\(kind.rawValue):\(port)" }
    return "\(kind.rawValue):\(HostPort.join(host, port))"
  }
}

/// Where `send` and `replay` go: `udp://HOST:PORT`, `ws://HOST:PORT/PATH`
/// or `wss://HOST:PORT/PATH` (WebSocket over TLS).
package struct TargetURL: Equatable, Sendable {
  package enum Scheme: String, Sendable {
    case udp, ws, wss

    package var isWebSocket: Bool { self != .udp }
  }

  package var scheme: Scheme
  package var host: String
  package var port: Int
  /// The request path for ws (at least "/"); empty for udp.
  package var path: String

  package static let usage =
    "expected udp://HOST:PORT, ws://HOST:PORT/PATH or wss://HOST:PORT/PATH (e.g. udp://127.0.0.1:9000)"

  package static func parse(_ text: String) throws(CommandFailure) -> TargetURL {
    guard let separator = text.range(of: "://") else {
      throw CommandFailure("'\(text)': \(usage)")
    }
    let schemeText = text[..<separator.lowerBound].lowercased()
    guard let scheme = Scheme(rawValue: schemeText) else {
      throw CommandFailure("'\(text)': scheme '\(schemeText)' is not udp, ws or wss; \(usage)")
    }
    var authority = String(text[separator.upperBound...])
    var path = ""
    if let slash = authority.firstIndex(of: "/") {
      path = String(authority[slash...])
      authority = String(authority[..<slash])
    }
    if scheme == .udp, !path.isEmpty, path != "/" {
      throw CommandFailure("'\(text)': a udp destination has no path; \(usage)")
    }
    let defaultPort: Int? = scheme == .ws ? 80 : scheme == .wss ? 443 : nil
    let (host, port) = try HostPort.split(authority, whole: text, defaultPort: defaultPort)
    guard let host, !host.isEmpty else {
      throw CommandFailure("'\(text)': no host; \(usage)")
    }
    if scheme.isWebSocket {
      if path.isEmpty { path = "/" }
      guard path.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
        throw CommandFailure("'\(text)': the path must be printable ASCII without spaces")
      }
    } else {
      path = ""
    }
    return TargetURL(scheme: scheme, host: host, port: port, path: path)
  }

  package var display: String { "\(scheme.rawValue)://\(HostPort.join(host, port))\(path)" }
}

/// `HOST:PORT`, `[V6]:PORT` or `PORT`.
enum HostPort {
  package static func split(_ text: String, whole: String, defaultPort: Int?) throws(CommandFailure)
    -> (host: String?, port: Int)
  {
    var host: String?
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else {
        throw CommandFailure("'\(whole)': an IPv6 address needs a closing ']'")
      }
      host = String(text[text.index(after: text.startIndex)..<close])
      let after = text[text.index(after: close)...]
      if after.hasPrefix(":") {
        portText = after.dropFirst()
      } else if !after.isEmpty {
        throw CommandFailure("'\(whole)': expected ':PORT' after the IPv6 address")
      }
    } else if let colon = text.lastIndex(of: ":") {
      let head = text[..<colon]
      guard !head.contains(":") else {
        throw CommandFailure("'\(whole)': write an IPv6 address in brackets, e.g. [::1]:9000")
      }
      host = head.isEmpty ? nil : String(head)
      portText = text[text.index(after: colon)...]
    } else if text.allSatisfy(\.isNumber) {
      portText = Substring(text)
    } else {
      host = text
    }
    guard let portText, !portText.isEmpty else {
      guard let defaultPort else { throw CommandFailure("'\(whole)': no port given") }
      return (host, defaultPort)
    }
    guard let port = Int(portText), (1...65535).contains(port) else {
      throw CommandFailure("'\(whole)': port '\(portText)' is not 1…65535")
    }
    return (host, port)
  }

  package static func join(_ host: String, _ port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }
}
