/// The dissector's Lua runtime, last part: the message switch (kinds,
/// unknown kinds, bodies their kind does not fit), the whole frame (fixed
/// bytes first, the frame's size, the root, bytes after it, instances,
/// checks), the protocol's fields, and where it registers: its UDP ports,
/// Decode As, other UDP traffic by its fixed bytes, and BLE characteristics
/// (those Wireshark decodes itself too, through the "bluetooth.uuid" table).
enum LuaRuntimeFrame {
  static let source = ##"""
    local function path_range(st, e, obj, loc)
      local owner, slot = nil, nil
      if e.op == "slot" then owner, slot = obj, e.s
      elseif e.op == "member" then owner, slot = eval(st, e.a, obj, loc), e.s
      elseif e.op == "dmember" then
        owner = eval(st, e.a, obj, loc)
        slot = type(owner) == "table" and owner.t and e.m[owner.t]
      end
      if type(owner) ~= "table" or not slot then return nil end
      slot_value(st, owner, slot)
      local r = owner.ranges[slot]
      if not r then return nil end
      return offset_of(r[1], r[2]), r
    end

    read_message = function(st, obj, a)
      local s, r = obj.stream, a.read
      obj.state[a.slot] = 2
      if a.cond and not eval(st, a.cond, obj, {}) then return end
      local on = eval(st, r.on, obj, {})
      local chosen = r.fallback
      for _, c in ipairs(r.cases) do
        if c.v == on then chosen = c.r break end
      end
      local piece, taken
      if r.size then piece, taken = take(st, obj, a, r.size, s, {}) end
      st.reached = true
      if not chosen then
        st.kind = nil
        if piece and piece.len > 0 and obj.item then
          add_value(st, obj.item, P.name .. "." .. P.unknown.field, P.unknown.field, range_of(s, taken.start, taken.len), piece_bytes(piece), a)
        end
        warn(st, obj.item, P.unknown.warning, P.unknown.text)
        return
      end
      local T = P.types[chosen.t]
      st.kind = chosen.t
      local args = {}
      for i, e in ipairs(chosen.args) do args[i] = eval(st, e, obj, {}) end
      if not piece then
        obj.slots[a.slot] = read_object(st, chosen.t, s, obj, args, obj.item, obj.prefix)
        return
      end
      local m = T.mismatch
      local function body(item)
        local sub = { tvb = piece.tvb, base = piece.base, len = piece.len, pos = 0, bits = 0, bitcount = 0, origin = piece.origin }
        local child = read_object(st, chosen.t, sub, obj, args, item, obj.prefix)
        return child, sub
      end
      if not m then
        obj.slots[a.slot] = body(obj.item)
        return
      end
      -- A dry run first: a body its kind does not fit is shown otherwise.
      local saved = { #st.warnings, #st.checks, #st.objects }
      st.quiet = st.quiet + 1
      st.ran_past = nil
      local ok, child, sub = pcall(body, nil)
      st.quiet = st.quiet - 1
      for i = #st.warnings, saved[1] + 1, -1 do st.warnings[i] = nil end
      for i = #st.checks, saved[2] + 1, -1 do st.checks[i] = nil end
      for i = #st.objects, saved[3] + 1, -1 do st.objects[i] = nil end
      local failed = not ok
      if failed and not (type(child) == "table" and child.pktbench and st.ran_past and st.ran_past.tvb == piece.tvb and st.ran_past.base == piece.base) then
        error(child, 0)
      end
      local leftover = (not failed) and (sub.len - sub.pos) or 0
      if not failed and leftover == 0 then
        obj.slots[a.slot] = body(obj.item)
        return
      end
      local len_at = r.size.len_path and path_range(st, r.size.len_path, obj, {}) or offset_of(s, taken.start)
      if m.action == "error" or (m.action == "keep" and failed) then
        st.pending = { code = m.action == "error" and m.code or "bad-length", offset = len_at, text = T.name .. " does not take the bytes its length gives it" }
        return
      end
      if m.action == "unknown" then
        st.kind = nil
        if piece.len > 0 and obj.item then
          add_value(st, obj.item, P.name .. "." .. P.unknown.field, P.unknown.field, range_of(s, taken.start, taken.len), piece_bytes(piece), a)
        end
        warn(st, obj.item, m.code, m.text)
        return
      end
      local kept
      obj.slots[a.slot], kept = body(obj.item)
      if obj.item then
        local extra = range_of(s, taken.start + kept.pos, kept.len - kept.pos)
        local it = add_value(st, obj.item, P.name .. "." .. m.field, m.field, extra, extra:raw(), a)
        warn(st, it, m.code, m.text)
      else
        warn(st, nil, m.code, m.text)
      end
    end

    -- A CRC bit by bit, as the catalogue defines it (widths up to 32).
    local function reflect(x, w)
      local r = 0
      for _ = 1, w do r = r * 2 + x % 2 x = floor(x / 2) end
      return r
    end

    local function check_value(v, data)
      if v.kind == "xor" then
        local c = 0
        for i = 1, #data do c = bxor(c, data:byte(i)) end
        return c
      elseif v.kind == "sum" then
        local c = 0
        for i = 1, #data do c = (c + data:byte(i)) % 256 end
        return c
      end
      if v.width > 32 then return nil end
      local reg, top, size = v.init, 2 ^ (v.width - 1), 2 ^ v.width
      for i = 1, #data do
        local b = data:byte(i)
        if v.refin then b = reflect(b, 8) end
        for k = 7, 0, -1 do
          local bit = floor(b / 2 ^ k) % 2
          local high = floor(reg / top) % 2
          reg = (reg * 2) % size
          if high ~= bit then reg = bxor(reg, v.poly) end
        end
      end
      if v.refout then reg = reflect(reg, v.width) end
      reg = bxor(reg, v.xorout)
      if v.low then reg = reg % 256 end
      return reg
    end

    local function ancestor(obj, up)
      for _ = 1, up do obj = obj and obj.parent end
      return obj
    end

    local function verify_checks(st, tvb)
      for _, pending in ipairs(st.checks) do
        local obj, a, c = pending.obj, pending.a, pending.a.check
        local r = obj.ranges[a.slot]
        local field_at = offset_of(r[1], r[2])
        local from, through = 0, field_at
        if c.from then
          local o = ancestor(obj, c.from[1])
          local fr = o and o.ranges[c.from[2]]
          if fr then from = offset_of(fr[1], fr[2]) end
        end
        if c.through then
          local o = ancestor(obj, c.through[1])
          local tr = o and o.ranges[c.through[2]]
          if tr then through = offset_of(tr[1], tr[2]) + tr[3] end
        end
        local data = through > from and tvb(from, through - from):raw() or ""
        if c.extra then data = data .. string.char(eval(st, c.extra, obj, {}) % 256) end
        local value, matched, computed = obj.slots[a.slot], nil, {}
        for i, v in ipairs(c.variants) do
          local got = check_value(v, data)
          computed[#computed + 1] = got and string.format("0x%X (%s)", got, v.label) or v.label
          if got == value and not matched then matched = i end
        end
        if not matched then
          damage(c.code, field_at, string.format("%s at offset %d is 0x%X; expected %s", a.id, field_at, value, table.concat(computed, " or ")))
        end
        if c.report and pending.item then
          add_value(st, obj.item, obj.prefix .. "." .. c.report, c.report, r[1].tvb(r[1].base + r[2], r[3]), c.variants[matched].name, a)
        end
      end
    end

    -- One payload: its message kind's name, or nil and the damage.
    local function dissect_payload(tvb, pinfo, tree, st)
      local len = tvb:len()
      for _, e in ipairs(P.early) do
        for i = 1, #e.bytes do
          local at = e.offset + i - 1
          if at >= len then break end
          if tvb(at, 1):uint() ~= e.bytes:byte(i) then
            damage(e.code, at, string.format("%s byte at offset %d is 0x%02X; expected 0x%02X", e.id, at, tvb(at, 1):uint(), e.bytes:byte(i)))
          end
        end
      end
      if P.frame_sizes then
        local fits = false
        for _, n in ipairs(P.frame_sizes) do if n == len then fits = true end end
        if not fits then damage(P.frame_size_error, math.min(len, P.longest_frame), "a frame of " .. len .. " bytes is no " .. P.name .. " frame") end
      end
      local s = { tvb = tvb, base = 0, len = len, pos = 0, bits = 0, bitcount = 0 }
      local root = read_object(st, 1, s, nil, {}, tree, P.name)
      if s.pos < s.len and P.trailing then
        if P.trailing.error then damage(P.trailing.code, s.pos, (s.len - s.pos) .. " bytes follow the frame's last field") end
        warn(st, tree, P.trailing.code, (s.len - s.pos) .. " bytes follow the frame's last field")
      end
      if st.pending then damage(st.pending.code, st.pending.offset, st.pending.text) end
      local i = 1
      while i <= #st.objects do
        local obj = st.objects[i]
        local T = P.types[obj.t]
        for _, a in ipairs(T.instances) do
          obj.state[a.slot] = nil
          read_instance(st, obj, a, true)
        end
        i = i + 1
      end
      verify_checks(st, tvb)
      if P.enum_kind then
        local v = eval(st, P.enum_kind, root, {})
        return P.kind_names[v] or P.unknown.name
      end
      if P.message_slot then return st.kind and P.kind_names[st.kind] or P.unknown.name end
      return P.kind_names[1]
    end

    local proto = Proto(P.name, P.title)
    local pf, kinds, list = {}, {}, {}
    for _, f in ipairs(P.fields) do
      local abbr, made = f.key, nil
      local base_ = f.hex and base.HEX or base.DEC
      if f.ftype == "none" then made = ProtoField.none(abbr, f.label)
      elseif f.ftype == "bytes" then made = ProtoField.bytes(abbr, f.label)
      elseif f.ftype == "string" then made = ProtoField.string(abbr, f.label)
      elseif f.ftype == "bool" then made = ProtoField.bool(abbr, f.label)
      elseif f.ftype == "double" then made = ProtoField.double(abbr, f.label)
      elseif f.ftype == "enum" then made = ProtoField.uint32(abbr, f.label, base_, P.enums[f.enum])
      else made = ProtoField[f.ftype](abbr, f.label, base_) end
      pf[abbr], kinds[abbr] = made, f.ftype
      list[#list + 1] = made
    end
    local e_error = ProtoExpert.new(P.name .. ".error", "structural damage", expert.group.MALFORMED, expert.severity.ERROR)
    local e_warning = ProtoExpert.new(P.name .. ".warning", "warning", expert.group.PROTOCOL, expert.severity.WARN)
    proto.fields = list
    proto.experts = { e_error, e_warning }

    local function run(tvb, pinfo, tree)
      local item = tree and tree:add(proto, tvb()) or nil
      local st = { work = 0, depth = 0, quiet = 0, warnings = {}, objects = {}, checks = {}, pf = pf, kinds = kinds,
        top = item, e_warning = e_warning, path_range = path_range, disc_type = P.disc_type, disc_slot = P.disc_slot }
      local ok, result = pcall(dissect_payload, tvb, pinfo, item, st)
      if ok then
        if item then item:append_text(": " .. result) end
        return result, st
      end
      local failure = type(result) == "table" and result or { code = "lua-error", offset = 0, text = tostring(result) }
      st.damage = failure
      if item then item:add_proto_expert_info(e_error, failure.code .. ": " .. failure.text) end
      return nil, st
    end

    local function show(tvb, pinfo, tree)
      pinfo.cols.protocol = P.label
      local name, st = run(tvb, pinfo, tree)
      if name then
        pinfo.cols.info:set(P.name .. " " .. name)
      else
        pinfo.cols.info:set(P.name .. " [" .. st.damage.code .. "] " .. st.damage.text)
      end
      return tvb:len()
    end

    function proto.dissector(tvb, pinfo, tree)
      return show(tvb, pinfo, tree)
    end

    local udp = DissectorTable.get("udp.port")
    for _, port in ipairs(P.udp_ports) do udp:add(port, proto) end
    udp:add_for_decode_as(proto)

    -- Other UDP traffic whose fixed bytes are the protocol's (a wrong check
    -- is still ours); the conversation stays ours, as pktbench keeps a flow
    -- with the codec it found.
    if #P.early > 0 then
      proto:register_heuristic("udp", function(tvb, pinfo, tree)
        local name, st = run(tvb, pinfo, nil)
        if not name and not (st.damage and P.check_codes[st.damage.code]) then return false end
        pinfo.conversation = proto
        show(tvb, pinfo, tree)
        return true
      end)
    end

    -- BLE: the "bluetooth.uuid" table hands over a characteristic's value,
    -- Wireshark's own decoding of it (Heart Rate…) included; a
    -- postdissector takes the operations that table is not asked for.
    if #P.ble > 0 then
      local uuids = DissectorTable.get("bluetooth.uuid")
      local wanted, seen = {}, {}
      local proxy = Proto(P.name .. "_gatt", P.title .. " (GATT value)")
      function proxy.dissector(tvb, pinfo, tree)
        seen[pinfo.number] = true
        return show(tvb, pinfo, tree)
      end
      for _, u in ipairs(P.ble) do
        wanted[u.plain] = true
        for _, key in ipairs(u.keys) do uuids:add(key, proxy) end
      end
      local ble = Proto(P.name .. "_ble", P.title .. " over BLE")
      local value_f = Field.new("btatt.value")
      local uuid_f = Field.new("btatt.uuid128")
      local uuid16_f = Field.new("btatt.uuid16")
      function ble.dissector(tvb, pinfo, tree)
        if seen[pinfo.number] then return end
        local value = value_f()
        if not value then return end
        local keys = {}
        for _, u in ipairs({ uuid_f() }) do keys[#keys + 1] = tostring(u):gsub("[:%-]", ""):lower() end
        for _, u in ipairs({ uuid16_f() }) do
          keys[#keys + 1] = string.format("0000%04x00001000800000805f9b34fb", u.value)
        end
        for _, key in ipairs(keys) do
          if wanted[key] then
            show(value.range:tvb(), pinfo, tree)
            return
          end
        end
      end
      register_postdissector(ble)
    end
    """##
}
