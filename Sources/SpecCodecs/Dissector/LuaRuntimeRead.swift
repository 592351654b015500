/// The dissector's Lua runtime, second part: streams, bits, sized reads,
/// objects, attributes, repeats and switches, each value added to the tree
/// under its display-filter name as pktbench shows it.
enum LuaRuntimeRead {
  static let source = ##"""
    local function offset_of(s, pos) return s.origin or (s.base + pos) end

    local function range_of(s, pos, len)
      if s.origin then return s.tvb(0, 0) end
      if len < 0 then len = 0 end
      return s.tvb(s.base + pos, len)
    end

    local function need(st, s, n, a)
      if s.len - s.pos < n then
        st.ran_past = s
        damage("truncated", offset_of(s, s.pos), a.id .. " needs " .. n .. " bytes at offset " .. offset_of(s, s.pos) .. ", but only " .. (s.len - s.pos) .. " remain")
      end
    end

    local function align(s) s.bits, s.bitcount = 0, 0 end

    local function read_uint(s, pos, n, little)
      local r = s.tvb(s.base + pos, n)
      if n <= 4 then
        if little then return r:le_uint() end
        return r:uint()
      end
      if little then return tonumber(tostring(r:le_uint64())) end
      return tonumber(tostring(r:uint64()))
    end

    local function read_bits(st, s, n, little, a)
      local needed = n - s.bitcount
      local res
      if needed > 0 then
        local count = floor((needed - 1) / 8) + 1
        need(st, s, count, a)
        local raw = 0
        if little then
          for i = count - 1, 0, -1 do raw = raw * 256 + s.tvb(s.base + s.pos + i, 1):uint() end
          res = (raw % 2 ^ needed) * 2 ^ s.bitcount + s.bits
          s.bits = floor(raw / 2 ^ needed)
        else
          for i = 0, count - 1 do raw = raw * 256 + s.tvb(s.base + s.pos + i, 1):uint() end
          local left = (-needed) % 8
          res = floor(raw / 2 ^ left) + s.bits * 2 ^ needed
          s.bits = raw % 2 ^ left
        end
        s.pos = s.pos + count
        s.bitcount = (-needed) % 8
      else
        if little then
          res = s.bits % 2 ^ n
          s.bits = floor(s.bits / 2 ^ n)
        else
          res = floor(s.bits / 2 ^ (-needed))
          s.bits = s.bits % 2 ^ (-needed)
        end
        s.bitcount = -needed
      end
      return res
    end

    local function is_little(obj, endian)
      if endian == "little" then return true end
      if endian == "object" then return obj.little end
      return false
    end

    -- The bytes a size plan takes: the stream piece they are (made anew when
    -- processed), and where the taken bytes lie.
    local function take(st, obj, a, size, s, loc)
      align(s)
      local start, stop, nextpos = s.pos, nil, nil
      if size.e then
        local n = eval(st, size.e, obj, loc)
        if n < 0 or n > s.len - s.pos then
          st.ran_past = s
          damage(a.error or "truncated", n < 0 and offset_of(s, s.pos) or offset_of(s, s.len), a.id .. " needs " .. n .. " bytes at offset " .. offset_of(s, s.pos) .. ", but only " .. (s.len - s.pos) .. " remain")
        end
        stop = s.pos + n
        nextpos = stop
      elseif size.eos then
        stop, nextpos = s.len, s.len
      else
        local t = size.term or 0
        local i = s.pos
        while i < s.len and s.tvb(s.base + i, 1):uint() ~= t do i = i + 1 end
        if i < s.len then
          stop = size.include and i + 1 or i
          nextpos = size.keep and i or i + 1
        else
          if not size.lenient then
            st.ran_past = s
            damage(a.error or "truncated", offset_of(s, s.len), a.id .. " has no terminator before the end")
          end
          stop, nextpos = s.len, s.len
        end
      end
      s.pos = nextpos
      local taken = { start = start, len = nextpos - start }
      if not size.term_only then
        if size.pad then
          while stop > start and s.tvb(s.base + stop - 1, 1):uint() == size.pad do stop = stop - 1 end
        end
        if size.term then
          local i = start
          while i < stop and s.tvb(s.base + i, 1):uint() ~= size.term do i = i + 1 end
          if i < stop then stop = size.include and i + 1 or i end
        end
      end
      local piece = { tvb = s.tvb, base = s.base + start, len = stop - start, pos = 0, bits = 0, bitcount = 0, origin = s.origin }
      if size.proc then
        local raw = stop > start and s.tvb(s.base + start, stop - start):raw() or ""
        local out = {}
        if size.proc == "zlib" then
          local ok, inflated = pcall(function() return s.tvb(s.base + start, stop - start):uncompress("inflated") end)
          if not ok or not inflated then damage(a.error or "bad-zlib", offset_of(s, start), a.id .. " is not zlib data") end
          piece = { tvb = inflated, base = 0, len = inflated:len(), pos = 0, bits = 0, bitcount = 0, origin = offset_of(s, start) }
          return piece, taken
        end
        local key = eval(st, size.key, obj, loc)
        for i = 1, #raw do
          local c = raw:byte(i)
          if size.proc == "xor" then
            local k = type(key) == "string" and key:byte((i - 1) % #key + 1) or key % 256
            c = bxor(c, k)
          else
            local n = key % 8
            if size.proc == "ror" then n = (8 - n) % 8 end
            c = band(bor(lshift(c, n), rshift(c, 8 - n)), 0xFF)
          end
          out[i] = string.char(c)
        end
        local made = ByteArray.new(table.concat(out), true):tvb("processed")
        piece = { tvb = made, base = 0, len = made:len(), pos = 0, bits = 0, bitcount = 0, origin = offset_of(s, start) }
      end
      return piece, taken
    end

    local function piece_bytes(p) if p.len <= 0 then return "" end return p.tvb(p.base, p.len):raw() end

    -- Adding values to the tree.
    local function shown(a, v)
      if a.scale and type(v) == "number" then return v * a.scale + a.offset end
      return v
    end

    local function add_value(st, item, key, label, range, v, a)
      if not item then return nil end
      local field = st.pf[key]
      local kind = field and st.kinds[key]
      if not field then return item:add(range, label .. ": " .. tostring(v)) end
      if kind == "none" then return item:add(field, range) end
      if kind == "bytes" then
        if type(v) == "string" then return item:add(field, range, v) end
        return item:add(field, range)
      end
      if kind == "string" then return item:add(field, range, tostring(v)) end
      if kind == "bool" then return item:add(field, range, v and true or false) end
      if kind == "double" then return item:add(field, range, shown(a, v)) end
      if kind == "uint64" then return item:add(field, range, UInt64.new(v)) end
      if kind == "int64" then return item:add(field, range, Int64.new(v)) end
      if kind == "enum" then
        if v < 0 or v >= TWO32 then return item:add(range, label .. ": unknown(" .. tostring(v) .. ")") end
        return item:add(field, range, v)
      end
      if type(v) ~= "number" then return item:add(range, label .. ": " .. tostring(v)) end
      return item:add(field, range, v)
    end

    local read_object, read_message

    -- One element of an attribute: its value, where it lies (stream,
    -- position, length) and its tree item.
    local function read_element(st, obj, a, r, s, loc, item, key)
      if r.k == "int" then
        align(s)
        local start = s.pos
        need(st, s, r.n, a)
        local v = read_uint(s, start, r.n, is_little(obj, r.endian))
        if r.signed and v >= 2 ^ (8 * r.n - 1) then v = v - 2 ^ (8 * r.n) end
        s.pos = start + r.n
        return v, start, r.n, add_value(st, item, key, a.id, range_of(s, start, r.n), v, a)
      elseif r.k == "bits" then
        local start = s.bitcount > 0 and s.pos - 1 or s.pos
        local v = read_bits(st, s, r.n, r.little, a)
        if a.bool then v = v ~= 0 end
        local len = math.max(s.pos - start, 1)
        return v, start, len, add_value(st, item, key, a.id, range_of(s, start, len), v, a)
      elseif r.k == "float" then
        align(s)
        local start = s.pos
        need(st, s, r.n, a)
        local rg = s.tvb(s.base + start, r.n)
        local v = is_little(obj, r.endian) and rg:le_float() or rg:float()
        s.pos = start + r.n
        return v, start, r.n, add_value(st, item, key, a.id, range_of(s, start, r.n), v, a)
      elseif r.k == "contents" then
        align(s)
        local start = s.pos
        for i = 1, #r.v do
          if start + i - 1 >= s.len then break end
          local found = s.tvb(s.base + start + i - 1, 1):uint()
          if found ~= r.v:byte(i) then
            damage(a.error or "bad-contents", offset_of(s, start + i - 1), string.format("%s byte at offset %d is 0x%02X; expected 0x%02X", a.id, offset_of(s, start + i - 1), found, r.v:byte(i)))
          end
        end
        need(st, s, #r.v, a)
        s.pos = start + #r.v
        return r.v, start, #r.v, add_value(st, item, key, a.id, range_of(s, start, #r.v), r.v, a)
      elseif r.k == "bytes" or r.k == "str" then
        local p, taken = take(st, obj, a, r.size, s, loc)
        local v = piece_bytes(p)
        return v, taken.start, taken.len, add_value(st, item, key, a.id, range_of(s, taken.start, taken.len), v, a)
      elseif r.k == "user" then
        local args = {}
        for i, e in ipairs(r.args) do args[i] = eval(st, e, obj, loc) end
        if not r.size then
          align(s)
          local start = s.pos
          local sub = item and add_value(st, item, key, a.id, range_of(s, start, 0), nil, a)
          local child = read_object(st, r.t, s, obj, args, sub, key)
          if sub then sub:set_len(s.pos - start) end
          return child, start, s.pos - start, sub
        end
        local p, taken = take(st, obj, a, r.size, s, loc)
        local sub = item and add_value(st, item, key, a.id, range_of(s, taken.start, taken.len), nil, a)
        local child = read_object(st, r.t, p, obj, args, sub, key)
        return child, taken.start, taken.len, sub
      elseif r.k == "switch" then
        local on = eval(st, r.on, obj, loc)
        local chosen = r.fallback
        for _, c in ipairs(r.cases) do
          if c.v == on then chosen = c.r break end
        end
        if not r.size then
          if not chosen then return nil, s.pos, 0, nil end
          return read_element(st, obj, a, chosen, s, loc, item, key)
        end
        local p, taken = take(st, obj, a, r.size, s, loc)
        if not chosen then
          local v = piece_bytes(p)
          return v, taken.start, taken.len, add_value(st, item, key, a.id, range_of(s, taken.start, taken.len), v, a)
        end
        if chosen.k == "user" then
          local args = {}
          for i, e in ipairs(chosen.args) do args[i] = eval(st, e, obj, loc) end
          local sub = item and add_value(st, item, key, a.id, range_of(s, taken.start, taken.len), nil, a)
          local child = read_object(st, chosen.t, p, obj, args, sub, key)
          return child, taken.start, taken.len, sub
        end
        return read_element(st, obj, a, chosen, p, loc, item, key)
      elseif r.k == "value" then
        local v = eval(st, r.e, obj, loc)
        return v, obj.start, 0, (v ~= nil and type(v) ~= "table") and add_value(st, item, key, a.id, range_of(obj.stream, obj.start, 0), v, a) or nil
      end
      damage("lua", 0, "read " .. tostring(r.k))
    end

    -- valid, the expected value, the enum and the range, after each element.
    local function judge(st, obj, a, v, item, s, start, len)
      local va = a.valid
      if va then
        local loc = { under = v }
        local bad = false
        if va.eq and eval(st, va.eq, obj, loc) ~= v then bad = true end
        if not bad and va.min and v < eval(st, va.min, obj, loc) then bad = true end
        if not bad and va.max and v > eval(st, va.max, obj, loc) then bad = true end
        if not bad and va.any then
          local any = false
          for _, e in ipairs(va.any) do if eval(st, e, obj, loc) == v then any = true end end
          bad = not any
        end
        if not bad and va.expr and not eval(st, va.expr, obj, loc) then bad = true end
        if not bad and va.in_enum and P.enums[va.in_enum][v] == nil then bad = true end
        if bad then
          local at = offset_of(s, start)
          if a.error_at then
            local rg = st.path_range(st, a.error_at, obj, loc)
            if rg then at = rg end
          end
          damage(a.error or "not-valid", at, a.id .. " at offset " .. offset_of(s, start) .. " is not valid")
        end
      end
      if a.expect ~= nil and v ~= a.expect and not (type(v) == "boolean" and (v and 1 or 0) == a.expect) then
        warn(st, item, a.expect_code, a.id .. " at offset " .. offset_of(s, start) .. " is " .. tostring(v) .. "; expected " .. tostring(a.expect))
      end
      if a.enum and type(v) == "number" and P.enums[a.enum][v] == nil and not (st.disc_type == obj.t and st.disc_slot == a.slot) then
        warn(st, item, "unknown-enum", a.id .. " " .. v .. " at offset " .. offset_of(s, start) .. " is unknown")
      end
      if a.range and type(v) == "number" then
        local n = shown(a, v)
        if n < a.range[1] or n > a.range[2] then
          warn(st, item, "out-of-range", a.id .. " " .. n .. " at offset " .. offset_of(s, start) .. " is outside " .. a.range[1] .. "…" .. a.range[2])
        end
      end
    end

    -- An attribute: condition, repeat, each element judged; its value and
    -- where it lies kept in the object's slot.
    local function read_attribute(st, obj, a, s, quiet)
      s = s or obj.stream
      local key = obj.prefix .. "." .. a.id
      if a.cond and not eval(st, a.cond, obj, {}) then obj.state[a.slot] = 2 return end
      local item = not quiet and obj.item or nil
      local start = s.pos
      if not a.rep then
        local v, vstart, vlen, vitem = read_element(st, obj, a, a.read, s, {}, item, key)
        judge(st, obj, a, v, vitem, s, vstart, vlen)
        obj.slots[a.slot], obj.state[a.slot] = v, 2
        obj.ranges[a.slot] = { s, vstart, vlen }
        if a.check then st.checks[#st.checks + 1] = { obj = obj, a = a, item = vitem } end
        return
      end
      local list = item and item:add(range_of(s, start, 0), a.id) or nil
      local out = { n = 0 }
      local total = a.rep == "expr" and eval(st, a.count, obj, {}) or nil
      if total and total < 0 then damage("bad-count", offset_of(s, s.pos), a.id .. " repeats " .. total .. " times") end
      local index = 0
      while true do
        if total and index >= total then break end
        if a.rep == "eos" and s.bitcount == 0 and s.pos >= s.len then break end
        spend(st)
        local before, beforebits = s.pos, s.bitcount
        local v, vstart, vlen, vitem = read_element(st, obj, a, a.read, s, { index = index }, list, key)
        if vitem and type(v) ~= "table" then vitem:append_text(" [" .. index .. "]") end
        judge(st, obj, a, v, vitem, s, vstart, vlen)
        out.n = out.n + 1
        out[out.n] = v
        index = index + 1
        if a.rep == "until" and eval(st, a["until"], obj, { under = v, index = index - 1 }) then break end
        if a.rep ~= "expr" and s.pos == before and s.bitcount == beforebits then
          damage("no-progress", offset_of(s, s.pos), "an element of " .. a.id .. " took no bytes")
        end
      end
      if list then list:set_len(math.max(s.pos - start, 0)) end
      obj.slots[a.slot], obj.state[a.slot] = out, 2
      obj.ranges[a.slot] = { s, start, s.pos - start }
    end

    local function endianness(st, obj, T)
      if T.little ~= nil then return T.little end
      if T.inherit then return obj.parent and obj.parent.little or false end
      if T.endian then
        local v = eval(st, T.endian.on, obj, {})
        for _, c in ipairs(T.endian.cases) do if c.v == v then return c.little end end
        if T.endian.fallback ~= nil then return T.endian.fallback end
        damage("unknown-endian", offset_of(obj.stream, obj.start), "no case of the calculated endianness matches")
      end
      return false
    end

    read_object = function(st, t, s, parent, args, item, prefix)
      spend(st)
      st.depth = st.depth + 1
      if st.depth > MAX_DEPTH then damage("too-deep", offset_of(s, s.pos), "objects nested deeper than " .. MAX_DEPTH) end
      local T = P.types[t]
      local obj = { t = t, parent = parent, stream = s, slots = {}, state = {}, ranges = {}, start = s.pos, item = item, prefix = prefix }
      obj.root = (parent == nil or T.file_root) and obj or parent.root
      for i, v in ipairs(args) do obj.slots[i], obj.state[i] = v, 2 end
      st.objects[#st.objects + 1] = obj
      obj.little = endianness(st, obj, T)
      for _, a in ipairs(T.seq) do
        if parent == nil and t == 1 and a.slot == P.message_slot then read_message(st, obj, a)
        else read_attribute(st, obj, a) end
      end
      obj.len = s.pos - obj.start
      st.depth = st.depth - 1
      return obj
    end

    -- An instance read: `shown` adds it to the tree (at the frame's end,
    -- after every seq field, as pktbench shows it); read earlier because an
    -- expression needs it, it is computed quietly.
    local function read_instance(st, obj, a, shown)
      local slot = a.slot
      obj.state[slot] = 1
      if not shown then st.quiet = st.quiet + 1 end
      st.depth = st.depth + 1
      if st.depth > MAX_DEPTH then damage("too-deep", 0, "instances that need instances") end
      if a.cond and not eval(st, a.cond, obj, {}) then
        obj.state[slot] = 2
        st.depth = st.depth - 1
        if not shown then st.quiet = st.quiet - 1 end
        return nil
      end
      local s = obj.stream
      if a.io then s = eval(st, a.io, obj, {}) end
      local saved = { s.pos, s.bits, s.bitcount }
      if a.pos then
        local p = eval(st, a.pos, obj, {})
        if p < 0 or p > s.len then damage("bad-pos", offset_of(s, 0), a.id .. " is at " .. p .. ", outside its stream") end
        s.pos, s.bits, s.bitcount = p, 0, 0
      end
      local ok, err = pcall(read_attribute, st, obj, a, s, not shown)
      s.pos, s.bits, s.bitcount = saved[1], saved[2], saved[3]
      st.depth = st.depth - 1
      if not shown then st.quiet = st.quiet - 1 end
      if not ok then error(err, 0) end
      return obj.slots[slot]
    end

    -- A slot's value, an instance computed the first time it is read.
    slot_value = function(st, obj, slot)
      local state = obj.state[slot]
      if state == 2 then return obj.slots[slot] end
      if state == 1 then damage("instance-cycle", 0, "an instance needs its own value") end
      local T = P.types[obj.t]
      local a = T.instances[slot - T.nparams - #T.seq]
      if not a then damage("not-yet-read", 0, "a value read after the expression that needs it") end
      return read_instance(st, obj, a, false)
    end
    """##
}
