/// ATT opcodes and error codes by their Core specification names (Vol 3
/// Part F, 3.4 and 3.4.1.1).
enum ATTNames {
  static let opcodes: [UInt8: String] = [
    0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
    0x04: "Find Information Request", 0x05: "Find Information Response",
    0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
    0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request",
    0x0B: "Read Response", 0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
    0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request",
    0x11: "Read By Group Type Response", 0x12: "Write Request", 0x13: "Write Response",
    0x16: "Prepare Write Request", 0x17: "Prepare Write Response", 0x18: "Execute Write Request",
    0x19: "Execute Write Response", 0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication",
    0x1E: "Handle Value Confirmation", 0x20: "Read Multiple Variable Request",
    0x21: "Read Multiple Variable Response", 0x23: "Multiple Handle Value Notification",
    0x52: "Write Command", 0xD2: "Signed Write Command",
  ]

  static func opcode(_ opcode: UInt8) -> String {
    opcodes[opcode] ?? "Unknown ATT opcode \(BluetoothText.hex8(opcode))"
  }

  /// Requests, commands and confirmations come from the client; responses,
  /// notifications and indications from the server. An unknown opcode is
  /// read by its command bit and parity as the defined ones are laid out.
  static func isFromClient(_ opcode: UInt8) -> Bool {
    switch opcode {
    case 0x01, 0x1B, 0x1D, 0x23: return false
    case 0x1E, 0x52, 0xD2: return true
    default:
      if opcode & 0x40 != 0 { return true }
      return opcode & 0x3F <= 0x21 && opcode & 1 == 0
    }
  }

  static let errors: [UInt8: String] = [
    0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
    0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
    0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
    0x0B: "Attribute Not Long", 0x0C: "Encryption Key Size Too Short",
    0x0D: "Invalid Attribute Value Length", 0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption",
    0x10: "Unsupported Group Type", 0x11: "Insufficient Resources", 0x12: "Database Out Of Sync",
    0x13: "Value Not Allowed",
  ]

  /// `0x0B Attribute Not Long`
  static func error(_ code: UInt8) -> String {
    let name =
      errors[code]
      ?? (code >= 0x80 && code <= 0x9F
        ? "Application Error" : code >= 0xE0 ? "Common Profile and Service Error" : "Reserved")
    return "\(BluetoothText.hex8(code)) \(name)"
  }
}
