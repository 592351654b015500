/// Names of the HCI commands, events and error codes field captures show
/// most (Core specification Vol 4 Part E), so `hci` events read as words.
enum HCINames {
  /// `HCI command LE Set Scan Enable`, or the OGF/OCF for one not named.
  static func command(_ opcode: UInt16) -> String {
    prefixedCommands[opcode] ?? "HCI command \(commandName(opcode))"
  }

  static func commandName(_ opcode: UInt16) -> String {
    if let name = commands[opcode] { return name }
    let group = opcode >> 10
    let command = opcode & 0x03FF
    if opcode == 0 { return "No Operation" }
    return group == 0x3F
      ? "Vendor \(BluetoothText.hex16(command))"
      : "OGF \(BluetoothText.hex8(UInt8(group))) OCF \(BluetoothText.hex16(command))"
  }

  static func event(_ code: UInt8) -> String {
    prefixedEvents[code] ?? "HCI event \(BluetoothText.hex8(code))"
  }

  static func leSubevent(_ code: UInt8) -> String {
    prefixedSubevents[code] ?? "HCI event LE Meta \(BluetoothText.hex8(code))"
  }

  /// `0x13 Remote User Terminated Connection`
  static func reason(_ code: UInt8) -> String {
    let name = errors[code].map { " \($0)" } ?? ""
    return BluetoothText.hex8(code) + name
  }

  private static func opcode(_ group: UInt16, _ command: UInt16) -> UInt16 { group << 10 | command }

  static let commands: [UInt16: String] = {
    var table: [UInt16: String] = [:]
    let linkControl: [UInt16: String] = [
      0x0001: "Inquiry", 0x0002: "Inquiry Cancel", 0x0005: "Create Connection", 0x0006: "Disconnect",
      0x0008: "Create Connection Cancel", 0x0009: "Accept Connection Request",
      0x000A: "Reject Connection Request", 0x000B: "Link Key Request Reply",
      0x000C: "Link Key Request Negative Reply", 0x0011: "Authentication Requested",
      0x0013: "Set Connection Encryption", 0x0019: "Remote Name Request",
      0x001B: "Read Remote Supported Features", 0x001C: "Read Remote Extended Features",
      0x001D: "Read Remote Version Information", 0x0028: "Setup Synchronous Connection",
      0x0029: "Accept Synchronous Connection Request", 0x002B: "IO Capability Request Reply",
      0x002C: "User Confirmation Request Reply", 0x002D: "User Confirmation Request Negative Reply",
      0x003D: "Enhanced Setup Synchronous Connection",
    ]
    let linkPolicy: [UInt16: String] = [
      0x0003: "Sniff Mode", 0x0004: "Exit Sniff Mode", 0x0009: "Role Discovery", 0x000B: "Switch Role",
      0x000D: "Write Link Policy Settings", 0x000F: "Write Default Link Policy Settings",
      0x0011: "Sniff Subrating",
    ]
    let baseband: [UInt16: String] = [
      0x0001: "Set Event Mask", 0x0003: "Reset", 0x0005: "Set Event Filter", 0x0013: "Write Local Name",
      0x0014: "Read Local Name", 0x0016: "Write Connection Accept Timeout", 0x0018: "Write Page Timeout",
      0x001A: "Write Scan Enable", 0x001C: "Write Page Scan Activity",
      0x001E: "Write Inquiry Scan Activity", 0x0024: "Write Class Of Device",
      0x0033: "Host Buffer Size", 0x0035: "Host Number Of Completed Packets",
      0x0045: "Write Inquiry Mode", 0x0052: "Write Extended Inquiry Response",
      0x0056: "Write Simple Pairing Mode", 0x0063: "Set Event Mask Page 2",
      0x006D: "Write LE Host Support", 0x007A: "Write Secure Connections Host Support",
    ]
    let informational: [UInt16: String] = [
      0x0001: "Read Local Version Information", 0x0002: "Read Local Supported Commands",
      0x0003: "Read Local Supported Features", 0x0004: "Read Local Extended Features",
      0x0005: "Read Buffer Size", 0x0009: "Read BD_ADDR",
    ]
    let status: [UInt16: String] = [0x0005: "Read RSSI"]
    let lowEnergy: [UInt16: String] = [
      0x0001: "LE Set Event Mask", 0x0002: "LE Read Buffer Size",
      0x0003: "LE Read Local Supported Features", 0x0005: "LE Set Random Address",
      0x0006: "LE Set Advertising Parameters", 0x0007: "LE Read Advertising Physical Channel Tx Power",
      0x0008: "LE Set Advertising Data", 0x0009: "LE Set Scan Response Data",
      0x000A: "LE Set Advertising Enable", 0x000B: "LE Set Scan Parameters", 0x000C: "LE Set Scan Enable",
      0x000D: "LE Create Connection", 0x000E: "LE Create Connection Cancel",
      0x000F: "LE Read Filter Accept List Size", 0x0010: "LE Clear Filter Accept List",
      0x0011: "LE Add Device To Filter Accept List", 0x0012: "LE Remove Device From Filter Accept List",
      0x0013: "LE Connection Update", 0x0014: "LE Set Host Channel Classification",
      0x0016: "LE Read Remote Features", 0x0017: "LE Encrypt", 0x0018: "LE Rand",
      0x0019: "LE Enable Encryption", 0x001A: "LE Long Term Key Request Reply",
      0x001B: "LE Long Term Key Request Negative Reply", 0x001C: "LE Read Supported States",
      0x0020: "LE Remote Connection Parameter Request Reply", 0x0022: "LE Set Data Length",
      0x0023: "LE Read Suggested Default Data Length", 0x0024: "LE Write Suggested Default Data Length",
      0x0027: "LE Add Device To Resolving List", 0x0029: "LE Clear Resolving List",
      0x002D: "LE Set Address Resolution Enable", 0x002E: "LE Set Resolvable Private Address Timeout",
      0x002F: "LE Read Maximum Data Length", 0x0030: "LE Read PHY", 0x0031: "LE Set Default PHY",
      0x0032: "LE Set PHY", 0x0035: "LE Set Advertising Set Random Address",
      0x0036: "LE Set Extended Advertising Parameters", 0x0037: "LE Set Extended Advertising Data",
      0x0038: "LE Set Extended Scan Response Data", 0x0039: "LE Set Extended Advertising Enable",
      0x0041: "LE Set Extended Scan Parameters", 0x0042: "LE Set Extended Scan Enable",
      0x0043: "LE Extended Create Connection",
    ]
    for (group, names) in [
      (UInt16(0x01), linkControl), (0x02, linkPolicy), (0x03, baseband), (0x04, informational),
      (0x05, status), (0x08, lowEnergy),
    ] {
      for (command, name) in names { table[opcode(group, command)] = name }
    }
    return table
  }()

  static let prefixedCommands: [UInt16: String] = commands.mapValues { "HCI command " + $0 }

  static let events: [UInt8: String] = [
    0x01: "Inquiry Complete", 0x02: "Inquiry Result", 0x03: "Connection Complete",
    0x04: "Connection Request", 0x05: "Disconnection Complete", 0x06: "Authentication Complete",
    0x07: "Remote Name Request Complete", 0x08: "Encryption Change",
    0x0B: "Read Remote Supported Features Complete", 0x0C: "Read Remote Version Information Complete",
    0x0E: "Command Complete", 0x0F: "Command Status", 0x10: "Hardware Error", 0x12: "Role Change",
    0x13: "Number Of Completed Packets", 0x14: "Mode Change", 0x17: "Link Key Request",
    0x18: "Link Key Notification", 0x1B: "Max Slots Change", 0x20: "Page Scan Repetition Mode Change",
    0x22: "Inquiry Result With RSSI", 0x23: "Read Remote Extended Features Complete",
    0x2C: "Synchronous Connection Complete", 0x2D: "Synchronous Connection Changed",
    0x2E: "Sniff Subrating", 0x2F: "Extended Inquiry Result", 0x30: "Encryption Key Refresh Complete",
    0x31: "IO Capability Request", 0x32: "IO Capability Response", 0x33: "User Confirmation Request",
    0x36: "Simple Pairing Complete", 0x3E: "LE Meta", 0x48: "Authenticated Payload Timeout Expired",
    0xFF: "Vendor",
  ]

  static let prefixedEvents: [UInt8: String] = events.mapValues { "HCI event " + $0 }

  static let subevents: [UInt8: String] = [
    0x01: "LE Connection Complete", 0x02: "LE Advertising Report", 0x03: "LE Connection Update Complete",
    0x04: "LE Read Remote Features Complete", 0x05: "LE Long Term Key Request",
    0x06: "LE Remote Connection Parameter Request", 0x07: "LE Data Length Change",
    0x08: "LE Read Local P-256 Public Key Complete", 0x09: "LE Generate DHKey Complete",
    0x0A: "LE Enhanced Connection Complete", 0x0B: "LE Directed Advertising Report",
    0x0C: "LE PHY Update Complete", 0x0D: "LE Extended Advertising Report",
    0x12: "LE Advertising Set Terminated", 0x14: "LE Channel Selection Algorithm",
    0x29: "LE Enhanced Connection Complete v2",
  ]

  static let prefixedSubevents: [UInt8: String] = subevents.mapValues { "HCI event " + $0 }

  /// HCI error codes used as disconnection reasons (Vol 1 Part F).
  static let errors: [UInt8: String] = [
    0x05: "Authentication Failure", 0x06: "PIN or Key Missing", 0x08: "Connection Timeout",
    0x13: "Remote User Terminated Connection",
    0x14: "Remote Device Terminated Connection due to Low Resources",
    0x15: "Remote Device Terminated Connection due to Power Off", 0x16: "Connection Terminated By Local Host",
    0x1A: "Unsupported Remote Feature", 0x22: "LMP/LL Response Timeout", 0x28: "Instant Passed",
    0x3B: "Unacceptable Connection Parameters", 0x3D: "Connection Terminated due to MIC Failure",
    0x3E: "Connection Failed to be Established",
  ]
}
