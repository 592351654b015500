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
    let decoded: SpecDecoded? = message.payload.withUnsafeBytes { try? program.decode(SpecBytes($0)) }
    guard let decoded else {
      return [ignored(message, "it does not decode")]
    }
    if let variant, let used = checkVariant(decoded.message), used != variant {
      let names = checkNames
      return [ignored(message, "checked with \(names[used]); the \(device.name) checks \(names[variant])")]
    }
    last = decoded.name
    let warned = decoded.diagnostics.contains { $0.severity == .warning }
    for reply in device.replies where program.spec.message(named: reply.to)?.name == decoded.name {
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
          send, reply: reply, to: message, variant: variant ?? checkVariant(decoded.message))
        return [
          DeviceEvent(
            time: message.time, frame: message.frame, name: "answered", state: state,
            text: "answers \(send)"
              + reply.with.keys.sorted().map {
                " \($0) \(SpecLayout.describe(reply.with[$0] ?? .integer(0)))"
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
    guard let check = program.settingCheck(device) else { return [] }
    return check.variants.map(\.name)
  }

  private func checkVariant(_ message: SpecMessage) -> Int? {
    for value in message.header + message.body + message.trailer {
      if case .check(let variant) = value { return variant }
    }
    return nil
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
    guard let sent = program.spec.message(named: send) else {
      throw EncodeError(code: "unknown-message", text: "no message \(send)")
    }
    let fields = SpecSchema.craftFields(of: sent, in: program.spec).map(\.schema)
    for (name, literal) in reply.with {
      guard
        let field = SpecLayout.flatten(program.spec.header + sent.fields + program.spec.trailer)
          .first(where: { $0.name == name })
      else {
        values[name] = SpecSchema.value(
          of: literal, for: SpecField(name: name, line: 0, type: .json(.string)))
        continue
      }
      values[name] = SpecSchema.value(of: literal, for: field)
    }
    for name in reply.copy { values[name] = message.field(name) }
    if let variant, let parameter = fields.first(where: { $0.role == .craftParameter }) {
      let cases = parameter.enumCases
      if variant < cases.count {
        values[parameter.name] = .enumeration(name: cases[variant].name, raw: cases[variant].raw)
      }
    }
    let crafted = try program.craft(sent.name, from: values)
    return try program.encode(crafted, validate: false)
  }
}

extension SpecProgram {
  /// The check whose variant the device's setting chooses.
  func settingCheck(_ device: SpecDevice) -> SpecCheck? {
    guard let setting = device.checkSetting else { return nil }
    for field in SpecLayout.flatten(spec.header + spec.trailer + spec.messages.flatMap(\.fields)) {
      if case .check(let check) = field.role, check.craftParameter == setting { return check }
    }
    return nil
  }
}
