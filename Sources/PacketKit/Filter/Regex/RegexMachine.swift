/// Runs a `RegexProgram` over UTF-8 text by backtracking, as PCRE2 does,
/// counting every step against a budget and its backtracking stack
/// against a bound: a pattern that backtracks exponentially (`(a+)+$`)
/// gives up when either runs out instead of running for ever.
struct RegexMachine {
  private enum Entry {
    case branch(pc: Int, position: Int)
    case capture(slot: Int, old: Int)
    case register(Int, old: Int)
    /// A `greedyRun` that took `start..<position`: try again with one scalar fewer.
    case giveBack(pc: Int, start: Int, position: Int)
  }

  /// The most backtracking entries held at once (about 24 MB).
  static let maxStack = 1 << 20

  private let program: RegexProgram
  /// The program's instructions, lent for the search.
  private var code = UnsafeBufferPointer<RegexProgram.Instruction>(start: nil, count: 0)
  private let text: UnsafeRawBufferPointer
  private var captures: [Int]
  private var registers: [Int]
  private var stack: [Entry] = []
  /// Steps left; when they run out the search gives up (`exhausted`).
  private(set) var steps: Int
  private(set) var exhausted = false

  init(program: RegexProgram, text: UnsafeRawBufferPointer, steps: Int) {
    self.program = program
    self.text = text
    self.steps = steps
    captures = Array(repeating: -1, count: 2 * (program.captureCount + 1))
    registers = Array(repeating: -1, count: program.registerCount)
  }

  /// Whether the pattern matches anywhere in the text.
  mutating func search() -> Bool {
    program.instructions.withUnsafeBufferPointer { code in
      self.code = code
      defer { self.code = UnsafeBufferPointer(start: nil, count: 0) }
      return searchLent()
    }
  }

  private mutating func searchLent() -> Bool {
    if let required = program.required, !text.contains(where: required.contains) { return false }
    let first = firstBytes()
    var start = 0
    while true {
      if start == text.count || first.map({ $0.contains(text[start]) }) ?? true {
        for slot in captures.indices { captures[slot] = -1 }
        stack.removeAll(keepingCapacity: true)
        if run(from: 0, at: start, mustEnd: nil) != nil { return true }
        if exhausted { return false }
        if program.leadingRun {
          // `.*` from here already tried every start up to the next newline.
          guard let newline = text[start...].firstIndex(of: 0x0A) else { return false }
          start = newline + 1
          continue
        }
      }
      if program.anchored || start >= text.count { return false }
      start += decode(start).length
    }
  }

  /// The bytes a match can begin with, when the program begins with one
  /// ASCII scalar (in its case forms): positions that hold another are
  /// passed over without running the machine.
  private func firstBytes() -> [UInt8]? {
    switch program.instructions.first {
    case .scalar(let scalar)? where scalar.isASCII: return [UInt8(scalar.value)]
    case .caseless(let one, let other)? where one.isASCII && other.isASCII:
      return [UInt8(one.value), UInt8(other.value)]
    default: return nil
    }
  }

  /// Runs from instruction `pc` at `position` to a `succeed` (one at
  /// `mustEnd`, when given); the position it ended at, or nil. What it
  /// pushed on the stack stays there on success (the caller decides),
  /// and is undone on failure.
  private mutating func run(from pc: Int, at position: Int, mustEnd: Int?) -> Int? {
    let base = stack.count
    var pc = pc
    var position = position
    while true {
      steps &-= 1
      if steps < 0 || stack.count > Self.maxStack {
        exhausted = true
        return nil
      }
      var holds = true
      switch code[pc] {
      case .scalar, .caseless, .caselessForms, .any, .anyButNewline, .set:
        if let length = single(code[pc], at: position) {
          position += length
          pc += 1
        } else {
          holds = false
        }
      case .split(let prefer, let other):
        stack.append(.branch(pc: other, position: position))
        pc = prefer
      case .jump(let target):
        pc = target
      case .save(let slot):
        stack.append(.capture(slot: slot, old: captures[slot]))
        captures[slot] = position
        pc += 1
      case .assert(let assertion):
        holds = self.holds(assertion, at: position)
        pc += 1
      case .backreference(let number, let caseless):
        if let end = backreference(number, caseless: caseless, at: position) {
          position = end
          pc += 1
        } else {
          holds = false
        }
      case .look(let body, let next, let behind, let negative):
        let mark = stack.count
        let found =
          behind ? lookBehind(body, at: position) : run(from: body, at: position, mustEnd: nil) != nil
        if exhausted { return nil }
        if found && negative { unwind(to: mark) }
        if found && !negative { dropBranches(from: mark) }
        holds = found != negative
        pc = next
      case .atomic(let body, let next):
        let mark = stack.count
        if let end = run(from: body, at: position, mustEnd: nil) {
          dropBranches(from: mark)
          position = end
          pc = next
        } else {
          if exhausted { return nil }
          holds = false
        }
      case .mark(let register):
        stack.append(.register(register, old: registers[register]))
        registers[register] = position
        pc += 1
      case .loopIfMoved(let register, let target):
        pc = registers[register] != position ? target : pc + 1
      case .greedyRun(let index):
        let start = position
        let repeated = program.singles[index]
        while steps > 0, let length = single(repeated, at: position) {
          position += length
          steps &-= 1
        }
        if position > start { stack.append(.giveBack(pc: pc + 1, start: start, position: position)) }
        pc += 1
      case .succeed:
        if mustEnd == nil || mustEnd == position { return position }
        holds = false
      }
      if !holds, !backtrack(to: base, &pc, &position) { return nil }
    }
  }

  /// Resumes at the latest choice above `base`, undoing what came after it.
  private mutating func backtrack(to base: Int, _ pc: inout Int, _ position: inout Int) -> Bool {
    while stack.count > base {
      switch stack.removeLast() {
      case .branch(let resume, let at):
        pc = resume
        position = at
        return true
      case .capture(let slot, let old): captures[slot] = old
      case .register(let register, let old): registers[register] = old
      case .giveBack(let resume, let start, let at):
        let fewer = previousBoundary(at)
        if fewer > start { stack.append(.giveBack(pc: resume, start: start, position: fewer)) }
        pc = resume
        position = fewer
        return true
      }
    }
    return false
  }

  /// Undoes everything above `mark` (a negative look-around that matched).
  private mutating func unwind(to mark: Int) {
    while stack.count > mark {
      switch stack.removeLast() {
      case .capture(let slot, let old): captures[slot] = old
      case .register(let register, let old): registers[register] = old
      case .branch, .giveBack: break
      }
    }
  }

  /// Forgets the choices above `mark` (an atomic group or look-ahead that
  /// matched is never tried another way) but keeps what undoes its captures.
  private mutating func dropBranches(from mark: Int) {
    var kept = mark
    for index in mark..<stack.count {
      switch stack[index] {
      case .branch, .giveBack: continue
      case .capture, .register:
        stack[kept] = stack[index]
        kept += 1
      }
    }
    stack.removeLast(stack.count - kept)
  }

  /// A look-behind: the body, begun at each earlier position, ending here.
  private mutating func lookBehind(_ body: Int, at position: Int) -> Bool {
    var start = position
    while true {
      if run(from: body, at: start, mustEnd: position) != nil { return true }
      if exhausted || start == 0 { return false }
      start = previousBoundary(start)
    }
  }

  // MARK: Scalars

  /// The bytes one scalar instruction takes at `position`, or nil.
  @inline(__always)
  private func single(_ instruction: RegexProgram.Instruction, at position: Int) -> Int? {
    guard position < text.count else { return nil }
    let (scalar, length) = decode(position)
    switch instruction {
    case .scalar(let wanted): return scalar == wanted ? length : nil
    case .caseless(let one, let other): return scalar == one || scalar == other ? length : nil
    case .caselessForms(let index): return program.forms[index].contains(scalar) ? length : nil
    case .any: return length
    case .anyButNewline: return scalar == "\n" ? nil : length
    case .set(let index, let low, let high):
      let value = scalar.value
      if value < 64 { return low & (1 << UInt64(value)) != 0 ? length : nil }
      if value < 128 { return high & (1 << UInt64(value - 64)) != 0 ? length : nil }
      return program.sets[index].contains(scalar) ? length : nil
    default: return nil
    }
  }

  /// The scalar at `position` and its length in bytes; a byte that starts
  /// no well-formed UTF-8 sequence is U+FFFD, one byte long.
  @inline(__always)
  private func decode(_ position: Int) -> (scalar: Unicode.Scalar, length: Int) {
    let lead = text[position]
    if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
    return decodeSequence(position)
  }

  private func decodeSequence(_ position: Int) -> (scalar: Unicode.Scalar, length: Int) {
    let lead = UInt32(text[position])
    let length: Int
    var value: UInt32
    let least: UInt32
    switch lead {
    case 0xC2...0xDF: (length, value, least) = (2, lead & 0x1F, 0x80)
    case 0xE0...0xEF: (length, value, least) = (3, lead & 0x0F, 0x800)
    case 0xF0...0xF4: (length, value, least) = (4, lead & 0x07, 0x10000)
    default: return ("\u{FFFD}", 1)
    }
    guard position + length <= text.count else { return ("\u{FFFD}", 1) }
    for offset in 1..<length {
      let byte = UInt32(text[position + offset])
      guard byte & 0xC0 == 0x80 else { return ("\u{FFFD}", 1) }
      value = value << 6 | (byte & 0x3F)
    }
    guard value >= least, let scalar = Unicode.Scalar(value) else { return ("\u{FFFD}", 1) }
    return (scalar, length)
  }

  /// Where the scalar that ends at `position` begins (as `decode` reads forward).
  private func previousBoundary(_ position: Int) -> Int {
    var start = position - 1
    while start > 0, position - start < 4, text[start] & 0xC0 == 0x80 { start -= 1 }
    if start < position - 1, start + decode(start).length != position { return position - 1 }
    return start
  }

  // MARK: Assertions and references

  private func holds(_ assertion: RegexAssertion, at position: Int) -> Bool {
    let end = text.count
    switch assertion {
    case .lineStart(let multiline): return position == 0 || (multiline && text[position - 1] == 0x0A)
    case .lineEnd(let multiline):
      if position == end { return true }
      return text[position] == 0x0A && (multiline || position == end - 1)
    case .textStart: return position == 0
    case .textEnd: return position == end
    case .textEndBeforeNewline: return position == end || (position == end - 1 && text[position] == 0x0A)
    case .wordBoundary(let negated):
      let before = position > 0 && Self.isWord(text[position - 1])
      let after = position < end && Self.isWord(text[position])
      return (before != after) != negated
    }
  }

  private static func isWord(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      || byte == 0x5F
  }

  /// Where the text group `number` took, repeated at `position`, ends; nil
  /// when it is not there (or the group took nothing yet, as in PCRE2).
  private func backreference(_ number: Int, caseless: Bool, at position: Int) -> Int? {
    let start = captures[2 * number]
    let end = captures[2 * number + 1]
    guard start >= 0, end >= start else { return nil }
    var from = start
    var at = position
    while from < end {
      guard at < text.count else { return nil }
      let (wanted, wantedLength) = decode(from)
      let (scalar, length) = decode(at)
      guard scalar == wanted || (caseless && RegexCase.variants(of: wanted).contains(scalar)) else {
        return nil
      }
      from += wantedLength
      at += length
    }
    return at
  }
}
