/// tshark's and tcpdump's options that pktbench does not take, answered with
/// the pktbench way of asking the same thing: someone with those tools in
/// their hands gets a sentence to copy, not "Unknown option".
enum ForeignOptions {
  /// The commands that read captures or traffic, where these habits show.
  static let commands: Set<String> = ["decode", "analyze", "capture", "listen", "emulate"]

  /// One line for the first foreign option in `arguments` (a whole command
  /// line, the command's name first), or nil when there is none.
  static func hint(_ arguments: [String]) -> String? {
    guard let command = arguments.first, commands.contains(command) else { return nil }
    let words = Array(arguments.dropFirst().prefix { $0 != "--" })
    for (index, word) in words.enumerated() {
      let value = index + 1 < words.count ? words[index + 1] : nil
      if let hint = hint(for: word, value: value, words: words, command: command) {
        return "\(command): \(word) is \(hint)"
      }
    }
    return nil
  }

  private static func hint(for word: String, value: String?, words: [String], command: String) -> String? {
    let fields = words.indices.compactMap { index -> String? in
      words[index] == "-e" && index + 1 < words.count ? words[index + 1] : nil
    }
    let fieldList = fields.isEmpty ? "frame,time,src,CODEC.FIELD" : fields.joined(separator: ",")
    switch word {
    case "-T":
      switch value {
      case "fields"?:
        return "tshark's; pktbench writes columns with --format tsv --fields \(fieldList) (or --format csv)"
      case "json"?: return "tshark's; pktbench writes --format json (or --format ndjson, one object a line)"
      case "ek"?: return "tshark's; pktbench writes one object a line with --format ndjson"
      default: return "tshark's; pktbench writes --format text (the default), ndjson, json, csv or tsv"
      }
    case "-e":
      return "tshark's; pktbench writes chosen fields with --format tsv --fields \(fieldList)"
    case "-z":
      return "tshark's; pktbench counts messages by codec and kind, with rates per flow, with --stats"
    case "-q" where command == "decode" || command == "analyze":
      return "tshark's; for counts only use --stats, and --no-progress for no progress line"
    case "-G":
      return "tshark's; 'pktbench codecs' lists every codec's messages and fields"
    case "-d":
      let example = value.flatMap(decodeAs) ?? "udp:PORT=CODEC"
      return "tshark's Decode As; pktbench takes --decode-as \(example)"
    case "-R", "-2":
      return "tshark's two-pass read filter; pktbench filters decoded fields with -Y in one pass"
    case "-f":
      return "tshark's capture filter; pktbench takes BPF with --filter, or as words after the files"
    case "-X", "-XX", "-A":
      return "tcpdump's; pktbench shows each payload in hex, its fields' bytes marked, with -x"
    case "-v", "-vv", "-vvv":
      return "tcpdump's; pktbench shows each message's whole tree with -V"
    default:
      return nil
    }
  }

  /// tshark's `udp.port==9000,legctrl` as pktbench's `udp:9000=legctrl`.
  private static func decodeAs(_ value: String) -> String? {
    let parts = value.split(separator: ",", maxSplits: 1)
    guard parts.count == 2 else { return nil }
    let selector = parts[0].replacingOccurrences(of: " ", with: "")
    for transport in ["udp", "tcp"] where selector.hasPrefix("\(transport).port==") {
      let port = selector.dropFirst("\(transport).port==".count)
      guard UInt16(port) != nil else { return nil }
      return "\(transport):\(port)=\(parts[1])"
    }
    return nil
  }
}
