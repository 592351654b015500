import PacketKit

/// Sec-WebSocket-Extensions lists (RFC 6455 §9.1) and the permessage-deflate
/// parameters a server accepts (RFC 7692 §7.1).
enum WebSocketExtensions {
  struct Element: Sendable, Hashable {
    var name: String
    var parameters: [Parameter]
  }

  struct Parameter: Sendable, Hashable {
    var name: String
    var value: String?
  }

  struct Negotiated: Sendable, Hashable {
    var deflate: WebSocketDeflateParameters?
    var otherExtensions: Bool
    var problems: [String]
  }

  static let deflateName = "permessage-deflate"

  /// Elements in order; names lower-cased, quoted values unquoted.
  static func parse(_ header: String) -> [Element] {
    split(header, on: ",").compactMap { element in
      let parts = split(element, on: ";").map { WebSocketHTTPHead.trim($0) }
      guard let name = parts.first, !name.isEmpty else { return nil }
      let parameters = parts.dropFirst().filter { !$0.isEmpty }.map { part in
        guard let equals = part.firstIndex(of: "=") else {
          return Parameter(name: part.lowercased(), value: nil)
        }
        var value = WebSocketHTTPHead.trim(part[part.index(after: equals)...])
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
          value = String(value.dropFirst().dropLast())
        }
        return Parameter(name: WebSocketHTTPHead.trim(part[..<equals]).lowercased(), value: value)
      }
      return Element(name: name.lowercased(), parameters: parameters)
    }
  }

  static func offersDeflate(_ header: String?) -> Bool {
    guard let header else { return false }
    return parse(header).contains { $0.name == deflateName }
  }

  /// What a server's response header turns on. A server accepts at most one
  /// permessage-deflate configuration; anything else it accepts may use RSV bits
  /// the decoder cannot interpret.
  static func negotiated(fromResponse header: String?) -> Negotiated {
    var result = Negotiated(deflate: nil, otherExtensions: false, problems: [])
    guard let header else { return result }
    for element in parse(header) {
      guard element.name == deflateName else {
        result.otherExtensions = true
        result.problems.append(
          "the server accepted extension \(Excerpt.quoted(element.name)), which this decoder cannot undo")
        continue
      }
      guard result.deflate == nil else {
        result.problems.append("the server accepted permessage-deflate twice; the first one applies")
        continue
      }
      var deflate = WebSocketDeflateParameters()
      var seen: Set<String> = []
      for parameter in element.parameters {
        if !seen.insert(parameter.name).inserted {
          result.problems.append(
            "permessage-deflate parameter \(Excerpt.short(parameter.name)) appears twice")
        }
        switch parameter.name {
        case "server_no_context_takeover", "client_no_context_takeover":
          if parameter.value != nil {
            result.problems.append("permessage-deflate parameter \(parameter.name) takes no value")
          }
          if parameter.name == "server_no_context_takeover" {
            deflate.serverNoContextTakeover = true
          } else {
            deflate.clientNoContextTakeover = true
          }
        case "server_max_window_bits", "client_max_window_bits":
          let bits = parameter.value.flatMap { Int($0) }
          guard let bits, (8...15).contains(bits) else {
            result.problems.append(
              "permessage-deflate parameter \(parameter.name) needs a value from 8 to 15 in a response, "
                + "found \(parameter.value.map { Excerpt.quoted($0) } ?? "none")")
            continue
          }
          if parameter.name == "server_max_window_bits" {
            deflate.serverMaxWindowBits = bits
          } else {
            deflate.clientMaxWindowBits = bits
          }
        default:
          result.problems.append("permessage-deflate has no parameter \(Excerpt.quoted(parameter.name))")
        }
      }
      result.deflate = deflate
    }
    return result
  }

  /// Splits on `separator` outside double quotes.
  private static func split(_ text: some StringProtocol, on separator: Character) -> [Substring] {
    let text = Substring(text)
    var parts: [Substring] = []
    var start = text.startIndex
    var quoted = false
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "\"" {
        quoted.toggle()
      } else if character == separator, !quoted {
        parts.append(text[start..<index])
        start = text.index(after: index)
      }
      index = text.index(after: index)
    }
    parts.append(text[start...])
    return parts
  }
}
