/// Why a Bluetooth capture file cannot be read at all, in one line for a
/// person: the file is missing, is not a btsnoop file (with the bytes it does
/// start with), or uses a version or datalink this reader does not know.
/// Damage inside a readable file is not an error: it ends the read with
/// `BtsnoopEnd.damaged` or becomes a `BluetoothEvent.damaged`.
public struct BluetoothError: Error, Sendable, Equatable, CustomStringConvertible {
  public var text: String

  public init(_ text: String) {
    self.text = text
  }

  public var description: String { text }
}
