/// A codec whose layout is also written as a Kaitai Struct spec (the text
/// `--spec` loads). Tools that need the layout as data read it here
/// (`pktbench dissector` writes a Wireshark dissector from it); a test
/// holds the spec against the codec on every vector, capture and fuzz input.
public protocol SpecDescribed {
  /// The spec file's text (a Kaitai Struct `.ksy`).
  var specText: String { get }
}
