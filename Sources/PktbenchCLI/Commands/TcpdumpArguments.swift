import Foundation

/// tcpdump's way of giving a filter: words after the files are a BPF
/// expression (`pktbench decode f.pcap udp port 5005`), and with `-r FILE`
/// every word is. Which leading words are files: `-` (stdin), a path that
/// exists (a directory too), or one that looks like a path (a `/`, or a capture's extension)
/// so that a missing file is reported as missing, not as a bad filter.
/// The first word that is none of these starts the expression.
enum TcpdumpArguments {
  static let captureExtensions: Set<String> = [
    "pcap", "pcapng", "cap", "btsnoop", "log", "pklg", "gz", "dmp", "ntar",
  ]

  /// The files and the expression (nil: none) in `words`; `read`: the files
  /// of `-r`, which make every word part of the expression.
  static func split(_ words: [String], read: [String]) -> (files: [String], expression: String?) {
    if !read.isEmpty { return (read, words.isEmpty ? nil : words.joined(separator: " ")) }
    let index = words.firstIndex { !isFile($0) } ?? words.endIndex
    let expression = words[index...]
    return (Array(words[..<index]), expression.isEmpty ? nil : expression.joined(separator: " "))
  }

  static func isFile(_ word: String) -> Bool {
    if word == "-" { return true }
    // (A directory too: reading it says it is one.)
    if FileManager.default.fileExists(atPath: word) { return true }
    if word.contains("/") { return true }
    let suffix = word.split(separator: ".").last.map { $0.lowercased() }
    return word.contains(".") && suffix.map { captureExtensions.contains($0) } == true
  }

  /// `--filter` and the expression after the files, both kept.
  static func combined(_ filter: String?, _ expression: String?) -> String? {
    switch (filter, expression) {
    case (let filter?, let expression?): "(\(filter)) and (\(expression))"
    case (let filter?, nil): filter
    case (nil, let expression?): expression
    case (nil, nil): nil
    }
  }
}
