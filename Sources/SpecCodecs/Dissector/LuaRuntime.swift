/// The part of every generated binary dissector that does not depend on
/// the spec: it walks the layout table `L` the generator writes above it.
/// Written once, in Lua, so the layout is data (as it is for the Swift
/// interpreter) and a dissector's behaviour is one program to read and test.
enum LuaRuntime {
  static let binary = #"""
    -- ---------------------------------------------------------------------
    -- The walker: the same layout pktbench's spec interpreter runs.
    -- ---------------------------------------------------------------------
    local proto = Proto(L.name, L.title)
    local pf = {}
    local list = {}
    for _, f in ipairs(L.fields) do
      local abbr = L.name .. "." .. f.key
      local base_ = f.hex and base.HEX or base.DEC
      local vs = f.enum and L.enums[f.enum] or nil
      local made
      if f.ftype == "none" then
        made = ProtoField.none(abbr, f.label)
      elseif f.ftype == "bytes" then
        made = ProtoField.bytes(abbr, f.label)
      elseif f.ftype == "string" then
        made = ProtoField.string(abbr, f.label)
      elseif f.ftype == "bool" then
        made = ProtoField.bool(abbr, f.label, f.bits, nil, f.mask)
      elseif f.ftype == "float" or f.ftype == "double" then
        made = ProtoField[f.ftype](abbr, f.label)
      else
        made = ProtoField[f.ftype](abbr, f.label, base_, vs, f.mask)
      end
      pf[f.key] = made
      list[#list + 1] = made
    end
    proto.fields = list
    local e_error = ProtoExpert.new(L.name .. ".error", "structural damage", expert.group.MALFORMED, expert.severity.ERROR)
    local e_warning = ProtoExpert.new(L.name .. ".warning", "warning", expert.group.PROTOCOL, expert.severity.WARN)
    proto.experts = { e_error, e_warning }

    local function band(a, b) return bit.band(a, b) end
    local function bxor(a, b) return bit.bxor(a, b) end
    local function rshift(a, n) return bit.rshift(a, n) end

    local checks = {}
    function checks.xor(t, a, b) local v = 0 for i = a, b - 1 do v = bxor(v, t(i, 1):uint()) end return v end
    function checks.sum(t, a, b) local v = 0 for i = a, b - 1 do v = (v + t(i, 1):uint()) % 256 end return v end
    function checks.crc8(t, a, b)
      local c = 0
      for i = a, b - 1 do
        c = bxor(c, t(i, 1):uint())
        for _ = 1, 8 do
          if band(c, 0x80) ~= 0 then c = band(bxor(c * 2, 0x07), 0xff) else c = band(c * 2, 0xff) end
        end
      end
      return c
    end
    local function modbus(t, a, b)
      local c = 0xffff
      for i = a, b - 1 do
        c = bxor(c, t(i, 1):uint())
        for _ = 1, 8 do
          if band(c, 1) ~= 0 then c = bxor(rshift(c, 1), 0xa001) else c = rshift(c, 1) end
        end
      end
      return c
    end
    checks["crc16-modbus"] = modbus
    checks["crc16-modbus-low"] = function(t, a, b) return band(modbus(t, a, b), 0xff) end
    checks.crc32 = function(t, a, b)
      local c = 0xffffffff
      for i = a, b - 1 do
        c = bxor(c, t(i, 1):uint())
        for _ = 1, 8 do
          if band(c, 1) ~= 0 then c = bxor(rshift(c, 1), 0xedb88320) else c = rshift(c, 1) end
        end
      end
      return bxor(c, 0xffffffff) % 4294967296
    end

    -- One frame's walk: where each field lies, values, the first damage.
    local function new_walk(tvb, tree, pinfo)
      return { tvb = tvb, tree = tree, pinfo = pinfo, values = {}, spans = {}, damage = nil, notes = {} }
    end

    local function damage(w, item, code, text, check)
      if w.damage then return end
      w.damage = { code = code, text = text, check = check }
      if item then item:add_proto_expert_info(e_error, code .. ": " .. text)
      elseif w.tree then w.tree:add_proto_expert_info(e_error, code .. ": " .. text) end
    end

    local function warn(w, item, code, text)
      w.notes[#w.notes + 1] = code
      local target = item or w.tree
      if target then target:add_proto_expert_info(e_warning, code .. ": " .. text) end
    end

    local function read_int(range, n)
      if n.width > 4 then
        local v = n.order == "little" and (n.signed and range:le_int64() or range:le_uint64())
          or (n.signed and range:int64() or range:uint64())
        return tonumber(tostring(v))
      end
      if n.order == "little" then return n.signed and range:le_int() or range:le_uint() end
      return n.signed and range:int() or range:uint()
    end

    local function add(w, parent, n, range)
      if not parent then return nil end
      local field = pf[n.key]
      if n.order == "little" then return parent:add_le(field, range) end
      return parent:add(field, range)
    end

    local walk_fields

    -- The byte size of field `n` at `pos`, or nil when it runs past `limit`.
    local function size_of(w, n, pos, limit)
      if n.size then return n.size end
      if n.size_field then return w.values[n.size_field] end
      return limit - pos
    end

    local function walk_one(w, parent, n, pos, limit)
      local tvb = w.tvb
      if n.type == "group" then
        local item = parent and parent:add(pf[n.key], tvb(pos, 0)) or nil
        local start = pos
        pos = walk_fields(w, item, n.children, pos, limit)
        if item and pos then item:set_len(pos - start) end
        return pos
      end
      if n.type == "repeat" then
        local count = n.count or (n.count_field and w.values[n.count_field]) or nil
        local index = 0
        while (count and index < count) or (not count and pos < limit) do
          local item = parent and parent:add(pf[n.key], tvb(pos, 0)) or nil
          if item then item:append_text(" [" .. index .. "]") end
          local start = pos
          pos = walk_fields(w, item, n.children, pos, limit)
          if not pos then return nil end
          if item then item:set_len(pos - start) end
          index = index + 1
        end
        return pos
      end
      local size = size_of(w, n, pos, limit)
      if size == nil or size < 0 or pos + size > limit then
        damage(w, parent, "truncated", n.key .. " needs " .. tostring(size) .. " bytes at offset " .. pos .. "; the frame ends at " .. limit)
        return nil
      end
      local range = tvb(pos, size)
      local item = add(w, parent, n, size > 0 and range or tvb(pos, 0))
      local value
      if n.type == "uint" or n.type == "int" then
        value = read_int(range, n)
        if n.flags and item then
          for _, flag in ipairs(n.flags) do
            if n.order == "little" then item:add_le(pf[flag], range) else item:add(pf[flag], range) end
          end
        end
      elseif n.type == "float" then
        value = n.order == "little" and range:le_float() or range:float()
      elseif n.type == "bytes" then
        value = size > 0 and tostring(range:bytes()):lower() or ""
      else
        value = size > 0 and range:string() or ""
      end
      w.values[n.key] = value
      w.spans[n.name] = { pos, size }
      w.spans[n.key] = { pos, size }
      local r = n.role
      if r then
        if r.kind == "fixed" and value ~= r.value then
          damage(w, item, r.error, n.key .. " is " .. tostring(value) .. "; it must be " .. tostring(r.value))
          return nil
        elseif r.kind == "expect" and value ~= r.value then
          warn(w, item, r.warning, n.key .. " is " .. tostring(value) .. ", normally " .. tostring(r.value))
        elseif (r.kind == "length" or r.kind == "count") and r.max and value > r.max then
          damage(w, item, r.error, n.key .. " " .. value .. " is more than " .. r.max)
          return nil
        elseif r.kind == "check" then
          local from = r.from and w.spans[r.from] and w.spans[r.from][1] or 0
          local through = pos
          if r.through and w.spans[r.through] then through = w.spans[r.through][1] + w.spans[r.through][2] end
          local matched, computed = nil, {}
          for _, v in ipairs(r.variants) do
            local c = checks[v.algorithm](tvb, from, through)
            computed[#computed + 1] = string.format("%s 0x%02x", v.name, c)
            if c == value and not matched then matched = v.name end
          end
          if matched then
            if r.report and parent then parent:add(pf[r.report], tvb(pos, size), matched) end
            if r.report then w.values[r.report] = matched end
          else
            damage(w, item, r.error, string.format("%s 0x%02x matches no check of bytes %d…%d (%s)", n.key, value, from, through - 1, table.concat(computed, ", ")), true)
            return nil
          end
        end
      end
      if n.enum and not n.discriminator and L.enums[n.enum][value] == nil then
        warn(w, item, "unknown-enum", n.key .. " " .. value .. " names no " .. n.enum .. " value")
      end
      if n.flag_mask and bit.band(value, bit.bnot(n.flag_mask)) ~= 0 then
        warn(w, item, "unknown-flags", n.key .. " has bits no flag names")
      end
      if n.min and (n.type == "uint" or n.type == "int" or n.type == "float") and (value < n.min or value > n.max) then
        warn(w, item, "out-of-range", n.key .. " " .. tostring(value) .. " is outside " .. n.min .. "…" .. n.max)
      end
      return pos + size
    end

    walk_fields = function(w, parent, fields, pos, limit)
      for _, n in ipairs(fields) do
        pos = walk_one(w, parent, n, pos, limit)
        if not pos then return nil end
      end
      return pos
    end

    -- Dissects one payload; returns the message name, or nil and the damage.
    local function dissect_payload(tvb, pinfo, tree)
      local len = tvb:len()
      local w = new_walk(tvb, tree, pinfo)
      for _, e in ipairs(L.early) do
        if len < e.offset + #e.bytes then break end
        for i, b in ipairs(e.bytes) do
          if tvb(e.offset + i - 1, 1):uint() ~= b then
            damage(w, tree, e.error, e.key .. " is not " .. e.text)
            return nil, w
          end
        end
      end
      local trailer_size = L.trailer_size
      local pos = walk_fields(w, tree, L.header, 0, len)
      if not pos then return nil, w end
      local header_end = pos
      local body_end = len - trailer_size
      if L.length then
        local v = w.values[L.length.key]
        local want = L.length.target == "frame" and v or header_end + v + trailer_size
        if L.length.target == "body" or L.length.target == "frame" then
          if want ~= len then
            damage(w, tree, L.length.error, L.length.key .. " " .. v .. " says the frame is " .. want .. " bytes; it is " .. len)
            return nil, w
          end
          body_end = want - trailer_size
        end
      end
      if body_end < header_end then
        damage(w, tree, "truncated", "the frame is " .. len .. " bytes; its header and trailer take " .. (header_end + trailer_size))
        return nil, w
      end
      local kind
      if L.discriminator == "frame-length" then
        kind = L.by_when[len]
        if not kind then
          damage(w, tree, L.length_error or "bad-length", "a frame of " .. len .. " bytes is no message of " .. L.name)
          return nil, w
        end
      elseif L.discriminator then
        kind = L.by_when[w.values[L.discriminator]]
      else
        kind = L.messages[1]
      end
      local name
      local mismatched = false
      local body_size = body_end - header_end
      if kind and kind.static and kind.static ~= body_size then
        local m = kind.mismatch
        if m.action == "unknown" then
          warn(w, tree, m.code, m.text)
          mismatched = true
          kind = nil
        elseif m.action == "keep" and body_size > kind.static then
          pos = walk_fields(w, tree, kind.fields, header_end, header_end + kind.static)
          if not pos then return nil, w end
          local item = tree and tree:add(pf[m.field], tvb(pos, body_end - pos)) or nil
          w.values[m.field] = tostring(tvb(pos, body_end - pos):bytes()):lower()
          warn(w, item, m.code, m.text)
          name = kind.name
          pos = body_end
        else
          damage(w, tree, m.code, kind.name .. " takes " .. kind.static .. " bytes; the frame has " .. body_size)
          return nil, w
        end
      end
      if not kind and not name then
        if not L.unknown then
          damage(w, tree, "unknown-kind", "no " .. L.name .. " message has this discriminator")
          return nil, w
        end
        name = L.unknown.name
        if body_size > 0 then
          if tree then tree:add(pf[L.unknown.field], tvb(header_end, body_size)) end
          w.values[L.unknown.field] = tostring(tvb(header_end, body_size):bytes()):lower()
        end
        if not mismatched then warn(w, tree, L.unknown.warning, L.unknown.text) end
        pos = body_end
      elseif not name then
        name = kind.name
        pos = walk_fields(w, tree, kind.fields, header_end, body_end)
        if not pos then return nil, w end
        if pos ~= body_end then
          damage(w, tree, kind.mismatch.code or "bad-length", (body_end - pos) .. " bytes after " .. kind.name .. "'s fields")
          return nil, w
        end
      end
      pos = walk_fields(w, tree, L.trailer, body_end, len)
      if not pos then return nil, w end
      return name, w
    end

    local function run(tvb, pinfo, tree)
      pinfo.cols.protocol = L.label
      local item = tree:add(proto, tvb())
      local name, w = dissect_payload(tvb, pinfo, item)
      if name then
        item:append_text(": " .. name)
        pinfo.cols.info:set(L.name .. " " .. name)
      else
        pinfo.cols.info:set(L.name .. " [" .. w.damage.code .. "] " .. w.damage.text)
      end
      return tvb:len()
    end

    function proto.dissector(tvb, pinfo, tree)
      return run(tvb, pinfo, tree)
    end

    -- Traffic on other ports: claimed when the frame is this protocol's
    -- by its fixed bytes and sizes (a wrong check byte is still ours).
    local function heuristic(tvb, pinfo, tree)
      local name, w = dissect_payload(tvb, pinfo, nil)
      if not name and not (w.damage and w.damage.check) then return false end
      -- The rest of this conversation is ours too, damaged or not, as
      -- pktbench keeps a flow with the codec it found.
      pinfo.conversation = proto
      run(tvb, pinfo, tree)
      return true
    end

    local udp = DissectorTable.get("udp.port")
    for _, port in ipairs(L.udp_ports) do udp:add(port, proto) end
    if #L.early > 0 then proto:register_heuristic("udp", heuristic) end

    -- BLE: tshark hands a characteristic's value to the "bluetooth.uuid"
    -- table only for some ATT operations; a postdissector sees them all
    -- (writes, notifications, indications, reads) with the UUID the
    -- capture's GATT discovery gave the handle.
    if #L.ble > 0 then
      local ble = Proto(L.name .. "_ble", L.title .. " over BLE")
      local value_f = Field.new("btatt.value")
      local uuid_f = Field.new("btatt.uuid128")
      local uuid16_f = Field.new("btatt.uuid16")
      local wanted = {}
      for _, u in ipairs(L.ble) do wanted[u] = true end
      function ble.dissector(tvb, pinfo, tree)
        local value = value_f()
        if not value then return end
        local keys = {}
        for _, u in ipairs({ uuid_f() }) do keys[#keys + 1] = tostring(u):gsub("[:%-]", ""):lower() end
        -- A 16-bit UUID stands for its 128-bit form on the Bluetooth base.
        for _, u in ipairs({ uuid16_f() }) do
          keys[#keys + 1] = string.format("0000%04x00001000800000805f9b34fb", u.value)
        end
        for _, key in ipairs(keys) do
          if wanted[key] then
            run(value.range:tvb(), pinfo, tree)
            return
          end
        end
      end
      register_postdissector(ble)
    end
    """#
}
