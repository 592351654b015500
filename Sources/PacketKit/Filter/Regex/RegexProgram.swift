/// A parsed regular expression compiled to the instructions of a
/// backtracking machine (`RegexMachine`). Counted repetitions are written
/// out, so the program's size is bounded: a pattern that would exceed it
/// is refused when the filter is compiled.
struct RegexProgram: Sendable {
  enum Instruction: Sendable {
    case scalar(Unicode.Scalar)
    /// Either of a scalar's two case forms.
    case caseless(Unicode.Scalar, Unicode.Scalar)
    /// Any of the case forms at `forms[index]` (a scalar with three).
    case caselessForms(Int)
    case any
    case anyButNewline
    /// The class at `sets[index]`, its ASCII half as a bitmap here.
    case set(Int, low: UInt64, high: UInt64)
    /// Goes on at `prefer`; on failure, at `other`.
    case split(prefer: Int, other: Int)
    case jump(Int)
    /// Records the position in capture slot `n` (2 per group: start, end).
    case save(Int)
    case assert(RegexAssertion)
    case backreference(Int, caseless: Bool)
    /// The sub-program at `body` (ending in `succeed`) as an assertion; then on at `next`.
    case look(body: Int, next: Int, behind: Bool, negative: Bool)
    /// The sub-program at `body`, its first match only; then on at `next`.
    case atomic(body: Int, next: Int)
    /// Register `n` = the position (a loop's start, to stop a loop that matches nothing).
    case mark(Int)
    /// Back to `to` when the position moved since register `n`'s mark; else on.
    case loopIfMoved(Int, to: Int)
    /// As many of the one-scalar instruction at `single` as there are, then
    /// gives them back one at a time on failure (`.*` without a stack entry per scalar).
    case greedyRun(single: Int)
    case succeed
  }

  /// The most instructions a pattern may compile to.
  static let maxInstructions = 100_000

  private(set) var instructions: [Instruction] = []
  private(set) var sets: [RegexSet] = []
  private(set) var forms: [[Unicode.Scalar]] = []
  /// One-scalar instructions `greedyRun` repeats.
  private(set) var singles: [Instruction] = []
  let captureCount: Int
  private(set) var registerCount = 0
  /// Whether a match can only begin at the start (`^…` or `\A…`, not multiline).
  private(set) var anchored = false
  /// The bytes (an ASCII scalar's case forms) every match must contain:
  /// a text without any of them is passed over whole.
  private(set) var required: [UInt8]?
  /// Whether the program begins with `.*`: a match that fails from one
  /// position fails from every later one before the next newline.
  private(set) var leadingRun = false

  init(_ node: RegexNode, captures: Int) throws(RegexSyntaxError) {
    captureCount = captures
    try emit(node)
    instructions.append(.succeed)
    switch instructions.first {
    case .assert(.textStart), .assert(.lineStart(multiline: false)): anchored = true
    case .greedyRun(let index):
      if case .anyButNewline = singles[index] { leadingRun = true }
      if case .any = singles[index] { anchored = true }
    default: break
    }
    required = Self.required(node)
  }

  /// An ASCII scalar every match of `node` takes, as its bytes (both
  /// cases when caseless); the last such in a sequence, as PCRE2 picks.
  private static func required(_ node: RegexNode) -> [UInt8]? {
    switch node {
    case .scalar(let scalar, let caseless) where scalar.isASCII:
      let forms = caseless ? RegexCase.variants(of: scalar) : [scalar]
      return forms.map { UInt8($0.value) }
    case .sequence(let items): return items.lazy.reversed().compactMap(required).first
    case .group(let inner, _), .atomic(let inner): return required(inner)
    case .repetition(let inner, let min, _, _) where min > 0: return required(inner)
    default: return nil
    }
  }

  private mutating func append(_ instruction: Instruction) throws(RegexSyntaxError) {
    guard instructions.count < Self.maxInstructions else {
      throw RegexSyntaxError(
        "the pattern is too large (more than \(Self.maxInstructions) steps once its repetitions are counted out)",
        at: 0)
    }
    instructions.append(instruction)
  }

  private mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
    switch node {
    case .empty: break
    case .scalar, .any, .set: try append(single(node))
    case .sequence(let items):
      for item in items { try emit(item) }
    case .alternation(let branches):
      var jumps: [Int] = []
      for (number, branch) in branches.enumerated() {
        let isLast = number == branches.count - 1
        let split = instructions.count
        if !isLast { try append(.split(prefer: split + 1, other: 0)) }
        try emit(branch)
        if !isLast {
          jumps.append(instructions.count)
          try append(.jump(0))
          instructions[split] = .split(prefer: split + 1, other: instructions.count)
        }
      }
      for jump in jumps { instructions[jump] = .jump(instructions.count) }
    case .group(let inner, let capture):
      if let capture { try append(.save(2 * capture)) }
      try emit(inner)
      if let capture { try append(.save(2 * capture + 1)) }
    case .repetition(let inner, let min, let max, let mode):
      if mode == .possessive {
        try emit(.atomic(.repetition(inner, min: min, max: max, mode: .greedy)))
      } else {
        try repetition(inner, min: min, max: max, lazy: mode == .lazy)
      }
    case .assertion(let assertion): try append(.assert(assertion))
    case .look(let inner, let behind, let negative):
      let at = instructions.count
      try append(.look(body: at + 1, next: 0, behind: behind, negative: negative))
      try emit(inner)
      try append(.succeed)
      instructions[at] = .look(body: at + 1, next: instructions.count, behind: behind, negative: negative)
    case .atomic(let inner):
      let at = instructions.count
      try append(.atomic(body: at + 1, next: 0))
      try emit(inner)
      try append(.succeed)
      instructions[at] = .atomic(body: at + 1, next: instructions.count)
    case .backreference(let number, let caseless): try append(.backreference(number, caseless: caseless))
    }
  }

  /// A node that matches exactly one scalar, as its instruction.
  private mutating func single(_ node: RegexNode) -> Instruction {
    switch node {
    case .scalar(let scalar, let caseless):
      let variants = RegexCase.variants(of: scalar)
      guard caseless, variants.count > 1 else { return .scalar(scalar) }
      if variants.count == 2 { return .caseless(variants[0], variants[1]) }
      forms.append(variants)
      return .caselessForms(forms.count - 1)
    case .any(let dotAll): return dotAll ? .any : .anyButNewline
    case .set(let set):
      sets.append(set)
      return .set(sets.count - 1, low: set.low, high: set.high)
    default: preconditionFailure("not a single-scalar node")
    }
  }

  private mutating func repetition(_ inner: RegexNode, min: Int, max: Int?, lazy: Bool)
    throws(RegexSyntaxError)
  {
    for _ in 0..<min { try emit(inner) }
    guard let max else {
      switch inner {
      case .scalar, .any, .set:
        guard lazy else {
          singles.append(single(inner))
          try append(.greedyRun(single: singles.count - 1))
          return
        }
      default: break
      }
      // loop: split(body, exit); body; back to loop (if it moved)
      let loop = instructions.count
      try append(.split(prefer: 0, other: 0))
      let body = instructions.count
      let register = Self.canBeEmpty(inner) ? registerCount : nil
      if let register {
        registerCount += 1
        try append(.mark(register))
      }
      try emit(inner)
      if let register {
        try append(.loopIfMoved(register, to: loop))
      } else {
        try append(.jump(loop))
      }
      let exit = instructions.count
      instructions[loop] = lazy ? .split(prefer: exit, other: body) : .split(prefer: body, other: exit)
      return
    }
    // Each optional copy nests in the one before: x{0,3} is (x(x(x)?)?)?.
    var splits: [Int] = []
    for _ in min..<max {
      splits.append(instructions.count)
      try append(.split(prefer: 0, other: 0))
      try emit(inner)
    }
    let exit = instructions.count
    for split in splits {
      instructions[split] =
        lazy ? .split(prefer: exit, other: split + 1) : .split(prefer: split + 1, other: exit)
    }
  }

  /// Whether `node` can match without taking a scalar (a loop over it must
  /// check that it moved, or it would loop for ever).
  static func canBeEmpty(_ node: RegexNode) -> Bool {
    switch node {
    case .scalar, .any, .set: return false
    case .empty, .assertion, .look, .backreference: return true
    case .sequence(let items): return items.allSatisfy(canBeEmpty)
    case .alternation(let branches): return branches.contains(where: canBeEmpty)
    case .group(let inner, _), .atomic(let inner): return canBeEmpty(inner)
    case .repetition(let inner, let min, _, _): return min == 0 || canBeEmpty(inner)
    }
  }
}
