import PacketDecode
import PacketKit

/// An `expect` step of `send`: a message the peer must send, with field
/// values, within a time. Fields are named by their craft flag or schema
/// name; values compare as the decode shows them (enumerations by name in
/// any case, with - for _, or by number; numbers by value; booleans).
package struct SendExpectation: Sendable {
  package var codec: String
  package var message: String
  package var fields: [(name: String, value: String)]
  var withinNanoseconds: UInt64

  static let defaultWithinNanoseconds: UInt64 = 2_000_000_000

  /// "authResponse success=true within 2s"
  package var label: String {
    (["expect \(message)"] + fields.map { "\($0.name)=\($0.value)" }).joined(separator: " ")
      + " within \(DurationText.of(Double(withinNanoseconds) / 1e9))"
  }

  package func matches(_ frame: DecodedFrame) -> Bool {
    guard frame.codec == codec, frame.message == message else { return false }
    return fields.allSatisfy { field in
      frame.fields.first(named: field.name).map { Self.value($0.value, equals: field.value) } ?? false
    }
  }

  /// What `frame` has in the fields this expectation names, found as
  /// `matches` finds them (in an envelope's payload too): `success=false`,
  /// or `success absent`.
  package func found(in frame: DecodedFrame) -> String {
    fields.map { field in
      guard let node = frame.fields.first(named: field.name) else { return "\(field.name) absent" }
      return "\(field.name)=\(TerminalText.escaped(node.value.display))"
    }.joined(separator: " ")
  }

  package static func value(_ value: FieldValue, equals text: String) -> Bool {
    switch value {
    case .bool(let flag): return text.lowercased() == (flag ? "true" : "false")
    case .enumeration(let name, let raw):
      return normalized(name) == normalized(text) || Int64(text) == raw
    case .string(let string): return string == text
    default:
      if let number = value.numericValue, let wanted = Double(text) { return number == wanted }
      return value.display == text
    }
  }

  private static func normalized(_ text: String) -> String {
    text.lowercased().replacingOccurrences(of: "-", with: "_")
  }

  /// Parses `expect MESSAGE [--field value …] [--within 2s]`.
  package static func parse(_ arguments: [String], codecs: CodecSet) throws(CommandFailure) -> SendExpectation
  {
    guard let name = arguments.first, !name.hasPrefix("-") else {
      throw CommandFailure("expect needs a message name, e.g. expect MESSAGE --field value --within 2s")
    }
    let (codec, schema) = try CraftArguments.resolve(name, codecs: codecs)
    var fields: [(name: String, value: String)] = []
    var within = defaultWithinNanoseconds
    var index = 1
    while index < arguments.count {
      let (token, inline) = splitFlag(arguments[index])
      guard token.hasPrefix("--") else {
        throw CommandFailure("expect \(schema.name): unexpected '\(token)'; give fields as --field value")
      }
      let flag = String(token.dropFirst(2))
      guard let value = inline ?? (index + 1 < arguments.count ? arguments[index + 1] : nil) else {
        throw CommandFailure("expect \(schema.name): \(token) needs a value")
      }
      index += inline == nil ? 2 : 1
      if flag == "within" {
        guard let duration = DurationArgument(argument: value), duration.seconds > 0 else {
          throw CommandFailure("--within takes a time such as 2s or 500ms, not '\(value)'")
        }
        within = duration.nanoseconds
        continue
      }
      guard let field = schema.fields.first(where: { $0.flag == flag || $0.name == flag }) else {
        let allowed = schema.fields.map { "--\($0.flag)" }.joined(separator: ", ")
        throw CommandFailure("expect \(schema.name): no field \(token); it has \(allowed), and --within")
      }
      fields.append((field.name, value))
    }
    return SendExpectation(
      codec: codec.info.name, message: schema.name, fields: fields, withinNanoseconds: within)
  }
}
