import PacketKit

/// One write to the command characteristic as the firmware's write handler
/// and work queue read it (docs/protocols.md §5): the handler checks only the
/// header's length, version and total length; the work queue then looks at
/// msg_type alone, and only SET_SERVO_CH0 reads its payload. So ARM with a
/// payload is ARM, and TELEMETRY written to the device is an unknown command.
/// The model and the rules read the bytes through this, not through `decode`,
/// whose message kinds follow §2's wire format.
enum LegCtrlWrite: Sendable, Equatable {
  /// Refused by the write handler with an ATT error: nothing changes.
  case rejected(Rejection)
  case arm(payloadLength: Int)
  case disarm(payloadLength: Int)
  case servo(pulse: Int)
  /// SET_SERVO_CH0 whose payload_len is not 2: logged and ignored.
  case servoBadLength(payloadLength: Int)
  case ping(payloadLength: Int)
  /// Any other msg_type: error_code INVALID_CMD, state unchanged.
  case unknown(msgType: UInt8)

  enum Rejection: Sendable, Equatable {
    case tooShort(length: Int)
    case badVersion(UInt8)
    case lengthMismatch(expected: Int, found: Int)
    /// payload_len over the 8 bytes the work item holds (with a total length to match).
    case payloadTooLarge(Int)
  }

  init(_ bytes: [UInt8]) {
    guard bytes.count >= 4 else {
      self = .rejected(.tooShort(length: bytes.count))
      return
    }
    guard bytes[0] == 1 else {
      self = .rejected(.badVersion(bytes[0]))
      return
    }
    let payloadLength = Int(bytes[2])
    guard bytes.count == 4 + payloadLength else {
      self = .rejected(.lengthMismatch(expected: 4 + payloadLength, found: bytes.count))
      return
    }
    guard payloadLength <= 8 else {
      self = .rejected(.payloadTooLarge(payloadLength))
      return
    }
    switch bytes[1] {
    case LegCtrlMsgType.arm: self = .arm(payloadLength: payloadLength)
    case LegCtrlMsgType.disarm: self = .disarm(payloadLength: payloadLength)
    case LegCtrlMsgType.ping: self = .ping(payloadLength: payloadLength)
    case LegCtrlMsgType.setServoCh0:
      self =
        payloadLength == 2
        ? .servo(pulse: Int(bytes[4]) | Int(bytes[5]) << 8) : .servoBadLength(payloadLength: payloadLength)
    default: self = .unknown(msgType: bytes[1])
    }
  }

  /// The command's name as the firmware's log and docs/protocols.md call it.
  var name: String {
    switch self {
    case .rejected: "write"
    case .arm: "ARM"
    case .disarm: "DISARM"
    case .servo, .servoBadLength: "SET_SERVO_CH0"
    case .ping: "PING"
    case .unknown(let type):
      type == LegCtrlMsgType.telemetry ? "TELEMETRY" : "msg_type 0x\(Hex.compact([type]))"
    }
  }

  /// Why the write handler refused it, for people.
  var rejectionText: String? {
    guard case .rejected(let rejection) = self else { return nil }
    switch rejection {
    case .tooShort(let length):
      return
        "\(length) byte\(length == 1 ? "" : "s"), shorter than the 4-byte header (ATT invalid attribute length)"
    case .badVersion(let version):
      return "version \(version), only 1 is accepted (ATT value not allowed)"
    case .lengthMismatch(let expected, let found):
      return "\(found) bytes where payload_len says \(expected) (ATT invalid attribute length)"
    case .payloadTooLarge(let length):
      return "payload_len \(length), more than 8 (ATT invalid attribute length)"
    }
  }

  /// The rejection in a word, for finding details.
  var rejectionCode: String? {
    guard case .rejected(let rejection) = self else { return nil }
    switch rejection {
    case .tooShort: return "too-short"
    case .badVersion: return "bad-version"
    case .lengthMismatch: return "length-mismatch"
    case .payloadTooLarge: return "payload-too-large"
    }
  }
}
