import Foundation
import PacketDecode
import PacketKit

/// Parses `--flag value` pairs for one message kind against its schema:
/// the flags, their types, units and ranges all come from the codec's
/// `MessageSchema`, so a new codec gets `craft` support for free.
package struct CraftArguments {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  package let schema: MessageSchema
  package let codecName: String
  /// The run's codecs, to say which have check bytes.
  package let codecs: CodecSet

  package init(schema: MessageSchema, codecName: String, codecs: CodecSet) {
    self.schema = schema
    self.codecName = codecName
    self.codecs = codecs
  }

  /// The codec and message kind a craft name stands for, or one line
  /// listing the known ones (`craft` and every `send` step).
  package static func resolve(_ name: String, codecs: CodecSet) throws(CommandFailure) -> (
    codec: any FrameCodec, schema: MessageSchema
  ) {
    guard let found = codecs.message(forCraftName: name) else {
      let known = codecs.craftNames.joined(separator: ", ")
      throw CommandFailure(
        name.hasPrefix("-")
          ? "expected a message name before '\(name)'; known: \(known)"
          : "unknown message '\(name)'; known: \(known)")
    }
    return found
  }

  /// `parse`, with a failure as the command's one line.
  package func values(_ tokens: [String], force: Bool, badCheck: Bool) throws(CommandFailure) -> CraftValues {
    if badCheck, let codec = codecs.named(codecName), !codec.info.hasCheckByte {
      // Ignored, it would craft a good frame where a bad one was asked for.
      let having = codecs.all.filter(\.info.hasCheckByte).map(\.info.name)
      throw CommandFailure(
        "--bad-check: \(codecName) frames have no check byte to spoil"
          + (having.isEmpty ? "" : " (\(having.joined(separator: ", ")) frames have one)"))
    }
    do {
      return try parse(tokens, force: force, badCheck: badCheck)
    } catch let failure as Failure {
      throw CommandFailure(failure.description)
    } catch {
      throw CommandFailure("\(error)")
    }
  }

  /// The values given, with defaults applied; file fields are loaded.
  package func parse(_ tokens: [String], force: Bool, badCheck: Bool) throws -> CraftValues {
    var values: [String: FieldValue] = [:]
    var index = 0
    while index < tokens.count {
      let token = tokens[index]
      guard token.hasPrefix("--") else {
        throw Failure(
          description:
            "unexpected '\(token)' for \(schema.name): give fields as --flag value; allowed: \(flagList())")
      }
      let (word, inlineValue) = splitFlag(token)
      let flag = String(word.dropFirst(2))
      if let (field, enumCase) = enumCaseFlag(flag) {
        values[field.name] = .enumeration(name: enumCase.name, raw: enumCase.raw)
        index += 1
        continue
      }
      guard let field = schema.fields.first(where: { $0.flag == flag || $0.name == flag }) else {
        throw Failure(
          description: "\(schema.name) has no flag --\(flag); allowed: \(flagList())")
      }
      if case .bool = field.kind, inlineValue == nil {
        let next = index + 1 < tokens.count ? tokens[index + 1].lowercased() : nil
        if next == "true" || next == "false" {
          values[field.name] = .bool(next == "true")
          index += 2
        } else {
          values[field.name] = .bool(true)
          index += 1
        }
        continue
      }
      let text: String
      if let inlineValue {
        text = inlineValue
        index += 1
      } else {
        guard index + 1 < tokens.count else {
          throw Failure(description: "--\(flag) needs a value: \(describe(field))")
        }
        text = tokens[index + 1]
        index += 2
      }
      values[field.name] = try value(text, for: field)
    }
    for field in schema.fields where values[field.name] == nil {
      if let defaultValue = field.defaultValue { values[field.name] = defaultValue }
    }
    if !force {
      for field in schema.fields {
        guard let value = values[field.name] else { continue }
        do {
          try field.validate(value)
        } catch {
          throw Failure(description: "\(error.text) (use --force to craft it anyway)")
        }
      }
    }
    return CraftValues(values, force: force, badCheck: badCheck)
  }

  private func enumCaseFlag(_ flag: String) -> (FieldSchema, FieldSchema.EnumCase)? {
    for field in schema.fields where field.casesAreFlags {
      if let match = field.enumCases.first(where: { $0.flagSpelling == flag }) {
        return (field, match)
      }
    }
    return nil
  }

  private func value(_ text: String, for field: FieldSchema) throws -> FieldValue {
    switch field.kind {
    case .integer:
      if let integer = Int64(text) { return .integer(integer) }
      if text.lowercased().hasPrefix("0x"), let hex = Int64(text.dropFirst(2), radix: 16) {
        return .integer(hex)
      }
      throw Failure(description: "--\(field.flag) takes a whole number, not '\(text)': \(describe(field))")
    case .number:
      guard let number = Double(text), number.isFinite else {
        throw Failure(description: "--\(field.flag) takes a number, not '\(text)': \(describe(field))")
      }
      return .number(number)
    case .bool:
      switch text.lowercased() {
      case "true", "yes", "1": return .bool(true)
      case "false", "no", "0": return .bool(false)
      default: throw Failure(description: "--\(field.flag) takes true or false, not '\(text)'")
      }
    case .string:
      return .string(text)
    case .enumeration(let cases):
      let wanted = text.lowercased().replacingOccurrences(of: "_", with: "-")
      if let match = cases.first(where: { $0.flagSpelling == wanted }) {
        return .enumeration(name: match.name, raw: match.raw)
      }
      if let raw = Int64(text) {
        let name = cases.first { $0.raw == raw }?.name ?? "unknown(\(raw))"
        return .enumeration(name: name, raw: raw)
      }
      throw Failure(
        description: "--\(field.flag) '\(text)' is not one of: "
          + cases.map(\.flagSpelling).joined(separator: ", "))
    case .bytes:
      do {
        return .bytes(try Hex.parse(text))
      } catch {
        throw Failure(description: "--\(field.flag): \(error.description)")
      }
    case .file:
      guard let data = FileManager.default.contents(atPath: text) else {
        throw Failure(description: "--\(field.flag): cannot read file '\(text)'")
      }
      return .bytes([UInt8](data))
    }
  }

  func flagList() -> String {
    var flags: [String] = []
    for field in schema.fields {
      flags.append("--\(field.flag)")
      if field.casesAreFlags { flags.append(contentsOf: field.enumCases.map { "--\($0.flagSpelling)" }) }
    }
    return flags.isEmpty ? "none" : flags.joined(separator: ", ")
  }

  package func describe(_ field: FieldSchema) -> String {
    var text = field.help
    if let range = field.rangeText { text += ", \(range)\(field.unit.map { " \($0)" } ?? "")" }
    if let rule = field.textRule { text += ", \(rule.description)" }
    if case .enumeration(let cases) = field.kind {
      text += " (\(cases.map(\.flagSpelling).joined(separator: "|")))"
    }
    return text
  }

  /// Help lines for `pktbench codecs` and `craft --list`.
  package static func helpLines(_ schema: MessageSchema) -> [String] {
    schema.fields.map { field in
      var flag = "--\(field.flag)"
      switch field.kind {
      case .integer: flag += " N"
      case .number: flag += " X"
      case .string: flag += " TEXT"
      case .bytes: flag += " HEX"
      case .file: flag += " PATH"
      case .bool: break
      case .enumeration(let cases):
        flag += " " + cases.map(\.flagSpelling).joined(separator: "|")
      }
      var detail: [String] = [field.help]
      if let range = field.rangeText { detail.append("range \(range)") }
      if let rule = field.textRule { detail.append(rule.description) }
      if let unit = field.unit { detail.append("unit \(unit)") }
      if let description = field.defaultDescription {
        detail.append("default \(description)")
      } else if let value = field.defaultValue {
        if case .enumeration(let name, _) = value {
          detail.append("default \(name.lowercased().replacingOccurrences(of: "_", with: "-"))")
        } else {
          detail.append("default \(value.display)")
        }
      } else if field.role == .field {
        detail.append("no default")
      }
      if field.role == .craftParameter { detail.append("not on the wire") }
      if field.casesAreFlags {
        detail.append("or " + field.enumCases.map { "--\($0.flagSpelling)" }.joined(separator: "/"))
      }
      return "    \(flag.padding(toLength: 34)) \(field.name): \(detail.joined(separator: "; "))"
    }
  }
}
