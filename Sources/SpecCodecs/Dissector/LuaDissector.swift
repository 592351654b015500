import PacketKit

/// A Wireshark Lua dissector for a binary spec: the layout as a Lua table
/// (`L`) followed by the walker (`LuaRuntime.binary`). Field names are the
/// display filter's (`legctrl.header.msg_type`), so a filter written for
/// `pktbench -Y` works in Wireshark too.
public enum LuaDissector {
  /// The whole `.lua` file for `program`'s spec, its protocol called `name`
  /// (an identifier; the codec's name unless it clashes with Wireshark's).
  public static func make(_ program: SpecProgram, name: String? = nil) -> String {
    let name = name ?? program.name
    switch program.format {
    case .json(let spec):
      var fixed: [String: [(key: String, value: String)]] = [:]
      for message in spec.messages {
        for field in message.fields {
          if case .fixed(.text(let value), _) = field.role {
            fixed[message.name, default: []].append((field.name, value))
          }
        }
      }
      return LuaJSONDissector.make(program.info, name: name, fixed: fixed)
    case .kaitai(let kaitai):
      return binary(kaitai, name: name)
    }
  }

  /// A binary format's dissector: the plan as Lua tables, then the walker.
  static func binary(_ program: KsProgram, name: String) -> String {
    let writer = LuaPlanWriter(program: program)
    let plan = program.plan
    var out = header(name: name)
    out += "local P = {}\n"
    out += "P.name = \(Lua.quoted(name))\n"
    out += "P.title = \(Lua.quoted(program.title))\n"
    out += "P.label = \(Lua.quoted(name.uppercased()))\n"
    out +=
      "P.enums = {\n" + plan.enums.map { "  " + writer.enumeration($0) + "," }.joined(separator: "\n")
      + "\n}\n"
    out += "P.types = {\n" + plan.types.map { "  " + writer.type($0) + "," }.joined(separator: "\n") + "\n}\n"
    let fields = LuaFields(program: program, prefix: name).fields
    out += "P.fields = {\n"
    for field in fields {
      out +=
        "  { key = \(Lua.quoted(field.key)), label = \(Lua.quoted(field.label)), ftype = \(Lua.quoted(field.type))"
      if let enumeration = field.enumeration { out += ", enum = \(enumeration + 1)" }
      if field.hex { out += ", hex = true" }
      out += " },\n"
    }
    out += "}\n"
    if program.messageSlot >= 0 { out += "P.message_slot = \(program.messageSlot + 1)\n" }
    var names: [String] = []
    for kind in program.kinds {
      if let type = kind.type {
        names.append("[\(type + 1)] = \(Lua.quoted(kind.name))")
      } else if let value = kind.value {
        names.append("[\(LuaPlanWriter.number(value))] = \(Lua.quoted(kind.name))")
      } else {
        names.append("[1] = \(Lua.quoted(kind.name))")
      }
    }
    out += "P.kind_names = { \(names.joined(separator: ", ")) }\n"
    if let selector = program.enumSelector { out += "P.enum_kind = \(writer.code(selector))\n" }
    let unknown = program.unknown
    out += "P.unknown = { name = \(Lua.quoted(unknown.name)), warning = \(Lua.quoted(unknown.warning)), "
    out += "text = \(Lua.quoted(unknown.text ?? "no \(program.name) message of this kind")), "
    out += "field = \(Lua.quoted(unknown.bodyField)) }\n"
    if let path = program.discriminatorPath { out += "P.disc = \(writer.code(path))\n" }
    if let (type, slot) = program.discriminator {
      out += "P.disc_type = \(type + 1)\nP.disc_slot = \(slot + 1)\n"
    }
    out += "P.early = {\n"
    for early in program.early {
      out +=
        "  { id = \(Lua.quoted(early.id)), offset = \(early.offset), bytes = \(Lua.quoted(early.bytes)), "
      out += "code = \(Lua.quoted(early.code)) },\n"
    }
    out += "}\n"
    if !program.frameSizes.isEmpty, program.messageAttribute?.keys.unknown == nil {
      out += "P.frame_sizes = { \(program.frameSizes.map(LuaPlanWriter.number).joined(separator: ", ")) }\n"
      out += "P.frame_size_error = \(Lua.quoted(program.messageAttribute?.keys.error ?? "bad-length"))\n"
      out += "P.longest_frame = \(program.frameSizes.max() ?? 0)\n"
    }
    switch program.keys.trailing {
    case .ignored: break
    case .error(let code): out += "P.trailing = { error = true, code = \(Lua.quoted(code)) }\n"
    case .warning(let code): out += "P.trailing = { code = \(Lua.quoted(code)) }\n"
    }
    out += "P.udp_ports = { \(program.keys.udpPorts.map(String.init).joined(separator: ", ")) }\n"
    out +=
      "P.check_codes = { \(program.checkErrors.sorted().map { "[\(Lua.quoted($0))] = true" }.joined(separator: ", ")) }\n"
    out += "P.ble = {\n"
    for characteristic in program.keys.ble?.characteristics ?? [] {
      let dashed = characteristic.uuid.lowercased()
      let plain = dashed.filter { $0 != "-" }
      var keys = [dashed, plain]
      if plain.hasPrefix("0000"), plain.hasSuffix("00001000800000805f9b34fb") {
        keys.insert(String(plain.dropFirst(4).prefix(4)), at: 0)
      }
      out +=
        "  { plain = \(Lua.quoted(plain)), keys = { \(keys.map(Lua.quoted).joined(separator: ", ")) } },\n"
    }
    out += "}\n"
    return out + LuaRuntimeEval.source + "\n" + LuaRuntimeRead.source + "\n" + LuaRuntimeFrame.source
  }

  /// The file's first lines: nothing from the spec (its texts go into
  /// quoted strings only), the name being an identifier.
  static func header(name: String) -> String {
    """
    -- A Wireshark dissector generated by `pktbench dissector`, protocol \(name).
    -- Load it with `wireshark -X lua_script:\(name).lua` or put it in Wireshark's
    -- plugin folder. Field names are pktbench's display-filter names.

    """
  }
}

/// Lua source text.
enum Lua {
  /// A Lua string literal: bytes outside printable ASCII as `\ddd`, so
  /// no text from a spec (a newline, a quote) can end the string or the
  /// line it is on.
  static func quoted(_ text: String) -> String {
    quoted(Array(text.utf8))
  }

  static func quoted(_ bytes: [UInt8]) -> String {
    var out = "\""
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "\""): out += "\\\""
      case UInt8(ascii: "\\"): out += "\\\\"
      case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
      default: out += Lua.decimalEscape(byte)
      }
    }
    return out + "\""
  }

  /// `\ddd`: a byte as Lua writes it in a string, three digits so a digit
  /// after it is not read as part of it.
  static func decimalEscape(_ byte: UInt8) -> String {
    let digits = String(Int(byte))
    return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
  }
}
