/// A `--flag=value` word split into its flag and its inline value; any
/// other word as it is, with no inline value. Send steps, craft fields and
/// emulate's device settings all take their flags this way.
package func splitFlag(_ word: String) -> (token: String, inline: String?) {
  guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
  return (String(word[..<equals]), String(word[word.index(after: equals)...]))
}
