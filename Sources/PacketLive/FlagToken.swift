/// A `--flag=value` word of a send step split into its flag and its inline
/// value; any other word as it is, with no inline value.
func splitFlag(_ word: String) -> (token: String, inline: String?) {
  guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
  return (String(word[..<equals]), String(word[word.index(after: equals)...]))
}
