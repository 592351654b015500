/// The dissector's Lua runtime, first part: state, damage and warnings,
/// bit arithmetic on Lua's doubles, and the expression evaluator over the
/// plan's expression tables (`{op="arith", o="+", a=…, b=…}`).
enum LuaRuntimeEval {
  static let source = ##"""
    local band, bor, bxor, lshift, rshift, bnot = bit32.band, bit32.bor, bit32.bxor, bit32.lshift, bit32.rshift, bit32.bnot
    local floor = math.floor
    local MAX_WORK, MAX_DEPTH = 65536, 64

    -- Damage stops the walk: a Lua error carrying pktbench's code.
    local function damage(code, offset, text)
      error({ pktbench = true, code = code, offset = offset, text = text }, 0)
    end

    local function spend(st)
      st.work = st.work + 1
      if st.work > MAX_WORK then damage("too-complex", 0, "more than " .. MAX_WORK .. " objects, elements and steps") end
    end

    local function warn(st, item, code, text)
      if st.quiet > 0 then return end
      st.warnings[#st.warnings + 1] = code
      local target = item or st.top
      if target then target:add_proto_expert_info(st.e_warning, code .. ": " .. text) end
    end

    -- Integers beyond 32 bits are kept exactly up to 2^53 (Lua's doubles).
    local TWO32 = 4294967296
    local function split(x) local hi = floor(x / TWO32) return hi, x - hi * TWO32 end
    local function join(hi, lo) return hi * TWO32 + lo end
    local function big_and(a, b) local ah, al = split(a) local bh, bl = split(b) return join(band(ah, bh), band(al, bl)) end
    local function big_or(a, b) local ah, al = split(a) local bh, bl = split(b) return join(bor(ah, bh), bor(al, bl)) end
    local function big_xor(a, b) local ah, al = split(a) local bh, bl = split(b) return join(bxor(ah, bh), bxor(al, bl)) end
    local function small(a, b) return a >= 0 and b >= 0 and a < TWO32 and b < TWO32 end

    local function int_op(o, a, b)
      if o == "+" then return a + b
      elseif o == "-" then return a - b
      elseif o == "*" then return a * b
      elseif o == "/" then
        if b == 0 then damage("bad-expression", 0, "division by zero") end
        return floor(a / b)
      elseif o == "%" then
        if b == 0 then damage("bad-expression", 0, "modulo by zero") end
        return a % b
      elseif o == "<<" then return a * 2 ^ b
      elseif o == ">>" then return floor(a / 2 ^ b)
      elseif o == "&" then if small(a, b) then return band(a, b) end return big_and(a, b)
      elseif o == "|" then if small(a, b) then return bor(a, b) end return big_or(a, b)
      elseif o == "^" then if small(a, b) then return bxor(a, b) end return big_xor(a, b)
      end
    end

    local function float_op(o, a, b)
      if o == "+" then return a + b
      elseif o == "-" then return a - b
      elseif o == "*" then return a * b
      elseif o == "/" then return a / b
      elseif o == "%" then return a % b
      end
    end

    local function compare(o, a, b)
      if a == nil or b == nil then damage("bad-expression", 0, "comparing an absent value") end
      if type(a) == "boolean" then a = a and 1 or 0 end
      if type(b) == "boolean" then b = b and 1 or 0 end
      if o == "==" then return a == b
      elseif o == "!=" then return a ~= b
      elseif o == "<" then return a < b
      elseif o == "<=" then return a <= b
      elseif o == ">" then return a > b
      else return a >= b end
    end

    local function utf8_length(s)
      local n = 0
      for i = 1, #s do
        local c = s:byte(i)
        if c < 0x80 or c >= 0xC0 then n = n + 1 end
      end
      return n
    end

    local eval, slot_value

    local function method(st, m, v, args, obj, loc)
      if m == "integerToString" then return tostring(floor(v))
      elseif m == "floatToInteger" then return v >= 0 and floor(v) or -floor(-v)
      elseif m == "boolToInteger" then return v and 1 or 0
      elseif m == "stringToInteger" then return tonumber(v) or damage("bad-expression", 0, "not an integer")
      elseif m == "stringToIntegerRadix" then return tonumber(v, eval(st, args[1], obj, loc)) or damage("bad-expression", 0, "not an integer")
      elseif m == "stringLength" then return utf8_length(v)
      elseif m == "stringReverse" then return v:reverse()
      elseif m == "substring" then return v:sub(eval(st, args[1], obj, loc) + 1, eval(st, args[2], obj, loc))
      elseif m == "bytesLength" then return #v
      elseif m == "bytes_to_s" then return v
      elseif m == "arraySize" then return v.n
      elseif m == "first" then return v[1]
      elseif m == "last" then return v[v.n]
      elseif m == "min" or m == "max" then
        local best = v[1]
        for i = 2, v.n do
          if (m == "min" and v[i] < best) or (m == "max" and v[i] > best) then best = v[i] end
        end
        return best
      elseif m == "bytesFirst" then return v:byte(1)
      elseif m == "bytesLast" then return v:byte(#v)
      elseif m == "bytesMin" or m == "bytesMax" then
        local best = v:byte(1)
        for i = 2, #v do
          local c = v:byte(i)
          if (m == "bytesMin" and c < best) or (m == "bytesMax" and c > best) then best = c end
        end
        return best
      end
      damage("bad-expression", 0, "method " .. m)
    end

    eval = function(st, e, obj, loc)
      local op = e.op
      if op == "k" then return e.v
      elseif op == "slot" then return slot_value(st, obj, e.s)
      elseif op == "this" then return obj
      elseif op == "parent" then
        local o = eval(st, e.a, obj, loc)
        return o.parent or damage("bad-expression", 0, "the root has no _parent")
      elseif op == "root" then return eval(st, e.a, obj, loc).root
      elseif op == "member" then
        local o = eval(st, e.a, obj, loc)
        if type(o) ~= "table" or not o.slots then damage("bad-expression", 0, "an object is absent") end
        return slot_value(st, o, e.s)
      elseif op == "dmember" then
        local o = eval(st, e.a, obj, loc)
        local s = type(o) == "table" and o.t and e.m[o.t]
        if not s then damage("bad-expression", 0, "this object has no such member") end
        return slot_value(st, o, s)
      elseif op == "under" then return loc.under
      elseif op == "index" then return loc.index
      elseif op == "io" then return eval(st, e.a, obj, loc).stream
      elseif op == "iosize" then return eval(st, e.a, obj, loc).len
      elseif op == "iopos" then return eval(st, e.a, obj, loc).pos
      elseif op == "ioeof" then
        local s = eval(st, e.a, obj, loc)
        return s.bitcount == 0 and s.pos >= s.len
      elseif op == "neg" then return -eval(st, e.a, obj, loc)
      elseif op == "inv" then return -eval(st, e.a, obj, loc) - 1
      elseif op == "not" then return not eval(st, e.a, obj, loc)
      elseif op == "arith" then
        local a, b = eval(st, e.a, obj, loc), eval(st, e.b, obj, loc)
        if a == nil or b == nil then damage("bad-expression", 0, "arithmetic on an absent value") end
        if e.f then return float_op(e.o, a, b) end
        return int_op(e.o, a, b)
      elseif op == "cat" then return eval(st, e.a, obj, loc) .. eval(st, e.b, obj, loc)
      elseif op == "cmp" then return compare(e.o, eval(st, e.a, obj, loc), eval(st, e.b, obj, loc))
      elseif op == "and" then return eval(st, e.a, obj, loc) and eval(st, e.b, obj, loc)
      elseif op == "or" then return eval(st, e.a, obj, loc) or eval(st, e.b, obj, loc)
      elseif op == "tern" then
        if eval(st, e.c, obj, loc) then return eval(st, e.a, obj, loc) end
        return eval(st, e.b, obj, loc)
      elseif op == "meth" then
        local v = eval(st, e.a, obj, loc)
        if v == nil then damage("bad-expression", 0, "a method of an absent value") end
        return method(st, e.m, v, e.args, obj, loc)
      elseif op == "at" then
        local a, i = eval(st, e.a, obj, loc), eval(st, e.i, obj, loc)
        if i < 0 or i >= a.n then damage("bad-expression", 0, "index outside the array") end
        return a[i + 1]
      elseif op == "byteat" then
        local a, i = eval(st, e.a, obj, loc), eval(st, e.i, obj, loc)
        if i < 0 or i >= #a then damage("bad-expression", 0, "index outside the bytes") end
        return a:byte(i + 1)
      elseif op == "cast" then
        local o = eval(st, e.a, obj, loc)
        if type(o) ~= "table" or not e.t[o.t] then damage("bad-expression", 0, "not an object of the type cast to") end
        return o
      elseif op == "arr" then
        local out = { n = #e.items }
        for i, item in ipairs(e.items) do out[i] = eval(st, item, obj, loc) end
        return out
      end
      damage("bad-expression", 0, "expression " .. tostring(op))
    end
    """##
}
