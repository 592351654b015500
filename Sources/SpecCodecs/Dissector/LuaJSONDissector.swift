import PacketKit

/// A Wireshark Lua dissector for a JSON codec: Wireshark's own JSON
/// dissector shows the payload; this one names the message (in the Info
/// column and as `<codec>.message`) from the codec's schema, and finds the
/// codec's traffic on its UDP ports and WebSocket paths.
public enum LuaJSONDissector {
  /// `fixed`: per message kind (by name), the text keys a spec fixes and
  /// their values (`"type": "set"`), which name the kind outright.
  public static func make(
    _ info: CodecInfo, name: String? = nil, fixed: [String: [(key: String, value: String)]] = [:]
  ) -> String {
    let name = name ?? info.name
    var out = LuaDissector.header(name: name)
    out += "local NAME = \(Lua.quoted(name))\n"
    out += "local TITLE = \(Lua.quoted(info.title))\n"
    out += "local MESSAGES = {\n"
    for message in info.messages {
      let keys = message.fields.filter { $0.role == .field }.map { Lua.quoted($0.name) }
      let pinned = (fixed[message.name] ?? []).map { "[\(Lua.quoted($0.key))] = \(Lua.quoted($0.value))" }
      out += "  { name = \(Lua.quoted(message.name)), keys = { \(keys.joined(separator: ", ")) }, "
      out += "fixed = { \(pinned.joined(separator: ", ")) } },\n"
    }
    out += "}\n"
    let ports = info.wellKnown.compactMap { endpoint -> String? in
      if case .udp(let port) = endpoint { return String(port) }
      return nil
    }
    let paths = info.wellKnown.compactMap { endpoint -> String? in
      if case .webSocket(let prefix, _) = endpoint { return Lua.quoted(prefix) }
      return nil
    }
    out += "local UDP_PORTS = { \(ports.joined(separator: ", ")) }\n"
    out += "local WS_PATHS = { \(paths.joined(separator: ", ")) }\n"
    return out + runtime
  }

  static let runtime = #"""
    local proto = Proto(NAME, TITLE)
    local f_message = ProtoField.string(NAME .. ".message", "message")
    proto.fields = { f_message }
    local json = Dissector.get("json")

    -- The top-level keys of a JSON object and its top-level text values,
    -- read without a JSON library (Wireshark's Lua has none).
    local function top_level(text)
      local keys, strings = {}, {}
      local depth, i, n = 0, 1, #text
      local key, expect_key = nil, false
      while i <= n do
        local c = text:sub(i, i)
        if c == '"' then
          local j = i + 1
          while j <= n do
            local d = text:sub(j, j)
            if d == "\\" then j = j + 2 elseif d == '"' then break else j = j + 1 end
          end
          local s = text:sub(i + 1, j - 1)
          if depth == 1 then
            if expect_key then
              key = s
              keys[s] = true
              expect_key = false
            elseif key then
              strings[key] = s
              key = nil
            end
          end
          i = j + 1
        else
          if c == "{" or c == "[" then
            depth = depth + 1
            if depth == 1 and c == "{" then expect_key = true end
            if depth > 1 then key = nil end
          elseif c == "}" or c == "]" then
            depth = depth - 1
          elseif c == "," and depth == 1 then
            expect_key = true
            key = nil
          end
          i = i + 1
        end
      end
      return keys, strings
    end

    -- The message kind: the one whose fixed text keys all match, else the
    -- one a top-level text value names (a "type" key), else the one with
    -- most of its keys present (fewest missing on a tie).
    local function message_name(text)
      local keys, strings = top_level(text)
      for _, m in ipairs(MESSAGES) do
        local any, all = false, true
        for k, v in pairs(m.fixed) do
          any = true
          if strings[k] ~= v then all = false end
        end
        if any and all then return m.name end
      end
      for _, m in ipairs(MESSAGES) do
        for _, s in pairs(strings) do
          if s == m.name then return m.name end
        end
      end
      local best, best_present, best_missing = nil, 0, 0
      for _, m in ipairs(MESSAGES) do
        local present = 0
        for _, k in ipairs(m.keys) do
          if keys[k] then present = present + 1 end
        end
        local missing = #m.keys - present
        if present > best_present or (present == best_present and present > 0 and missing < best_missing) then
          best, best_present, best_missing = m.name, present, missing
        end
      end
      return best
    end

    local function run(tvb, pinfo, tree)
      local text = tvb():raw()
      local name = message_name(text) or "unknown"
      pinfo.cols.protocol = NAME:upper()
      pinfo.cols.info:set(NAME .. " " .. name)
      local item = tree:add(proto, tvb())
      item:append_text(": " .. name)
      item:add(f_message, tvb(), name)
      if text:match("^%s*[%[{]") then json:call(tvb, pinfo, tree) end
      return tvb:len()
    end

    function proto.dissector(tvb, pinfo, tree)
      return run(tvb, pinfo, tree)
    end

    local udp = DissectorTable.get("udp.port")
    for _, port in ipairs(UDP_PORTS) do udp:add(port, proto) end
    udp:add_for_decode_as(proto)

    -- WebSocket: the upgrade request's path says a connection is ours; its
    -- text messages are handed over by a postdissector (tshark has no
    -- table keyed by path).
    if #WS_PATHS > 0 then
      local ws = Proto(NAME .. "_ws", TITLE .. " over WebSocket")
      local uri_f = Field.new("http.request.uri")
      local stream_f = Field.new("tcp.stream")
      local text_f = Field.new("websocket.payload.text")
      local streams = {}
      function ws.dissector(tvb, pinfo, tree)
        local stream = stream_f()
        if not stream then return end
        stream = stream.value
        local uri = uri_f()
        if uri then
          for _, prefix in ipairs(WS_PATHS) do
            if tostring(uri.value):sub(1, #prefix) == prefix then streams[stream] = true end
          end
        end
        if not streams[stream] then return end
        for _, t in ipairs({ text_f() }) do run(t.range:tvb(), pinfo, tree) end
      end
      register_postdissector(ws)
    end
    """#
}
