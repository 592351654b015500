import PacketKit

/// The device a spec describes, as a `DeviceModel`: it answers each
/// message it gets by the spec's reply rules (the first that holds), and
/// takes a frame checked with another variant than its own for damage (no
/// answer). No timers: a spec says nothing of time.
public struct SpecDeviceModel: DeviceModel {
  let program: SpecProgram
  let device: SpecDevice
  /// The check variant the device speaks, by index in its check's variants.
  let variant: Int?
  private var last: String?

  init(program: SpecProgram, device: SpecDevice, variant: Int?) {
    self.program = program
    self.device = device
    self.variant = variant
  }

  public var nextDeadline: Double? { nil }

  public mutating func advance(to time: Double) -> [DeviceEvent] { [] }

  public mutating func finish(end: Double?) -> [DeviceEvent] { [] }

  private var state: [FieldValue.Member] {
    [.init("last", last.map { .string($0) } ?? .null)]
  }

  public mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    guard message.event == nil, message.payload.count == message.size else { return [] }
    guard heading == .toDevice else {
      return [
        DeviceEvent(
          time: message.time, frame: message.frame, name: "report", state: state,
          text: message.message.map { "the \(device.name) sent \($0)" } ?? "the \(device.name) sent a frame")
      ]
    }
    let decoded: SpecDecoded? = message.payload.withUnsafeBytes { try? program.decode($0) }
    guard let decoded else {
      return [ignored(message, "it does not decode")]
    }
    if let variant, let used = program.checkVariant(decoded.message), used != variant {
      let names = checkNames
      return [ignored(message, "checked with \(names[used]); the \(device.name) checks \(names[variant])")]
    }
    last = decoded.name
    let warned = decoded.diagnostics.contains { $0.severity == .warning }
    for reply in device.replies
    where program.kindIndex(named: reply.to).map({ program.kinds[$0].name }) == decoded.name {
      if let warnings = reply.warnings, warnings != warned { continue }
      guard reply.when.allSatisfy({ matches(message.field($0.key), $0.value) }) else { continue }
      guard let send = reply.send else {
        return [
          DeviceEvent(
            time: message.time, frame: message.frame, name: "taken", state: state, text: "no answer")
        ]
      }
      do {
        let bytes = try answer(
          send, reply: reply, to: message, variant: variant ?? program.checkVariant(decoded.message))
        return [
          DeviceEvent(
            time: message.time, frame: message.frame, name: "answered", state: state,
            text: "answers \(send)"
              + reply.with.keys.sorted().map {
                " \($0) \((reply.with[$0] ?? .integer(0)).described)"
              }.joined(),
            replies: [.send(bytes)])
        ]
      } catch {
        return [ignored(message, "its answer cannot be made: \(error.text)")]
      }
    }
    return [
      DeviceEvent(
        time: message.time, frame: message.frame, name: "taken", state: state, text: "no rule answers it")
    ]
  }

  private func ignored(_ message: FlowMessage, _ why: String) -> DeviceEvent {
    DeviceEvent(time: message.time, frame: message.frame, name: "ignored", state: state, text: why)
  }

  private var checkNames: [String] {
    guard let setting = device.checkSetting, let variants = program.checkVariants(parameter: setting) else {
      return []
    }
    return variants.map(\.name)
  }

  private func matches(_ value: FieldValue?, _ literal: SpecLiteral) -> Bool {
    guard let value else { return false }
    switch (value, literal) {
    case (.enumeration(let name, let raw), .text(let text)):
      return name.lowercased() == text.lowercased() || String(raw) == text
    case (.enumeration(_, let raw), .integer(let number)): return raw == number
    case (_, .integer(let number)): return value.numericValue == Double(number)
    case (_, .number(let number)): return value.numericValue == number
    case (.string(let text), .text(let expected)): return text == expected
    case (.bool(let flag), .bool(let expected)): return flag == expected
    case (.bytes(let bytes), .bytes(let expected)): return bytes == expected
    default: return false
    }
  }

  private func answer(_ send: String, reply: SpecReply, to message: FlowMessage, variant: Int?)
    throws(EncodeError)
    -> [UInt8]
  {
    var values = CraftValues(capacity: reply.with.count + reply.copy.count + 1)
    guard let kind = program.kindIndex(named: send) else {
      throw EncodeError(code: "unknown-message", text: "no message \(send)")
    }
    let sent = program.info.messages[max(0, program.schemaIndex[kind])]
    for (name, literal) in reply.with {
      values[name] = Self.value(literal, for: sent.fields.first { $0.name == name })
    }
    for name in reply.copy { values[name] = message.field(name) }
    if let variant, let parameter = sent.fields.first(where: { $0.role == .craftParameter }) {
      let cases = parameter.enumCases
      if variant < cases.count {
        values[parameter.name] = .enumeration(name: cases[variant].name, raw: cases[variant].raw)
      }
    }
    let crafted = try program.craft(program.kinds[kind].name, from: values)
    return try program.encode(crafted, validate: false)
  }

  /// A reply's literal as craft takes it: an enum case by name or number.
  private static func value(_ literal: SpecLiteral, for field: FieldSchema?) -> FieldValue {
    switch literal {
    case .integer(let number):
      if let known = field?.enumCase(raw: number) { return .enumeration(name: known.name, raw: number) }
      return .integer(number)
    case .number(let number): return .number(number)
    case .text(let text):
      if let known = field?.enumCases.first(where: {
        $0.name.lowercased() == text.lowercased() || $0.flagSpelling == text.lowercased()
      }) {
        return .enumeration(name: known.name, raw: known.raw)
      }
      return .string(text)
    case .bytes(let bytes): return .bytes(bytes)
    case .bool(let flag): return .bool(flag)
    }
  }
}
