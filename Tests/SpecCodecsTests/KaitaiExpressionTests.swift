import PacketKit
import Testing

@testable import SpecCodecs

/// Kaitai conformance, the expression language (user guide: "Expression
/// language": literals, operators, methods; `_parent`, `_root`, `_io`,
/// `.as<>`, enums in expressions), through value instances shown beside
/// the fields.
@Suite struct KaitaiExpressionTests {
  static let spec = #"""
    meta: {id: expr, endian: be, encoding: UTF-8}
    seq:
      - {id: a, type: u1}
      - {id: b, type: s1}
      - {id: name, type: strz}
      - {id: raw, size: 3}
      - {id: nums, type: u1, repeat: expr, repeat-expr: 3}
      - {id: kind, type: u1, enum: animal}
      - {id: flag, type: b1}
      - {id: f, type: f4}
    instances:
      div: {value: a / 2}
      neg_div: {value: b / 2}
      mod: {value: b % 3}
      fdiv: {value: a / 2.0}
      shifts: {value: (a << 4) | (a >> 1)}
      bits: {value: (a & 3) ^ 0xf}
      inv: {value: ~a}
      cmp: {value: a > 5 and not (b > 0) or false}
      tern: {value: 'a == 7 ? "seven" : "other"'}
      mixed: {value: 'flag ? 1 : 2.5'}
      concat: {value: name + "!"}
      length: {value: name.length}
      rev: {value: name.reverse}
      sub: {value: 'name.substring(1, 3)'}
      to_i: {value: '"123".to_i + "ff".to_i(16)'}
      to_s: {value: a.to_s + "x"}
      float_i: {value: f.to_i}
      raw_len: {value: raw.length}
      raw_last: {value: raw.last}
      raw_eq: {value: 'raw == [1, 2, 3]'}
      size: {value: nums.size}
      first: {value: nums.first}
      last: {value: nums.last}
      min: {value: nums.min}
      max: {value: nums.max}
      second: {value: 'nums[1]'}
      is_dog: {value: 'kind == animal::dog'}
      kind_i: {value: kind.to_i}
      flag_i: {value: flag.to_i}
      io_size: {value: _io.size}
      literals: {value: 0xff_ff + 0b101 + 0o17}
      escaped: {value: '"a\tb\101"'}
      raw_text: {value: "'a\\tb'"}
    enums:
      animal: {1: cat, 2: dog}
    """#

  @Test func operatorsAndMethods() throws {
    let fields = try SpecSupport.decode(Self.spec, "07 fb 68656c6c6f00 010203 040902 02 80 40700000").fields
    func value(_ name: String) -> FieldValue? { SpecSupport.value(fields, name) }
    #expect(value("div") == .integer(3))
    #expect(value("neg_div") == .integer(-3))
    #expect(value("mod") == .integer(1))
    #expect(value("fdiv") == .number(3.5))
    #expect(value("shifts") == .integer(115))
    #expect(value("bits") == .integer(12))
    #expect(value("inv") == .integer(-8))
    #expect(value("cmp") == .bool(true))
    #expect(value("tern") == .string("seven"))
    #expect(value("mixed") == .number(1))
    #expect(value("concat") == .string("hello!"))
    #expect(value("length") == .integer(5))
    #expect(value("rev") == .string("olleh"))
    #expect(value("sub") == .string("el"))
    #expect(value("to_i") == .integer(378))
    #expect(value("to_s") == .string("7x"))
    #expect(value("float_i") == .integer(3))
    #expect(value("raw_len") == .integer(3))
    #expect(value("raw_last") == .integer(3))
    #expect(value("raw_eq") == .bool(true))
    #expect(value("size") == .integer(3))
    #expect(value("first") == .integer(4))
    #expect(value("last") == .integer(2))
    #expect(value("min") == .integer(2))
    #expect(value("max") == .integer(9))
    #expect(value("second") == .integer(9))
    #expect(value("is_dog") == .bool(true))
    #expect(value("kind_i") == .integer(2))
    #expect(value("flag_i") == .integer(1))
    #expect(value("io_size") == .integer(20))
    #expect(value("literals") == .integer(65555))
    #expect(value("escaped") == .string("a\tbA"))
    #expect(value("raw_text") == .string("a\\tb"))
  }

  /// An arithmetic failure is damage, never a trap.
  @Test(arguments: [
    "a / (a - 7)", "a % 0", "9223372036854775807 + a", "nums[5]", "(a + 1) * 4611686018427387904",
  ])
  func failuresAreDamage(expression: String) throws {
    let spec =
      "meta: {id: bad}\nseq: [{id: a, type: u1}, {id: nums, type: u1, repeat: expr, repeat-expr: 2}]\n"
      + "instances:\n  x: {value: '\(expression)'}\n"
    #expect(try SpecSupport.failure(spec, "07 01 02")?.code == "bad-expression")
  }

  @Test func parentRootAndCasts() throws {
    let spec = """
      meta: {id: cast}
      seq:
        - {id: kind, type: u1}
        - id: body
          type:
            switch-on: kind
            cases:
              1: small
              2: big
      instances:
        small_x: {value: body.as<small>.x, if: kind == 1}
        any_x: {value: body.x}
      types:
        small:
          seq: [{id: x, type: u1}]
          instances:
            up: {value: _parent.kind}
            top: {value: _root.kind + 10}
        big:
          seq: [{id: x, type: u1}, {id: y, type: u1}]
      """
    let small = try SpecSupport.decode(spec, "01 2a").fields
    #expect(SpecSupport.value(small, "small_x") == .integer(42))
    #expect(SpecSupport.value(small, "any_x") == .integer(42))
    #expect(SpecSupport.value(small, "body.up") == .integer(1))
    #expect(SpecSupport.value(small, "body.top") == .integer(11))
    let big = try SpecSupport.decode(spec, "02 05 06").fields
    #expect(SpecSupport.value(big, "small_x") == nil)
    #expect(SpecSupport.value(big, "any_x") == .integer(5))
  }

  @Test func parsesPrecedence() throws {
    let parsed = try KsExpressionParser.parse("1 + 2 * 3 == 7 and not x or y ? a.b[0] : -c.as<foo::bar>")
    guard case .ternary(let condition, let yes, let no) = parsed else {
      Issue.record("not a ternary: \(parsed)")
      return
    }
    #expect(
      condition
        == .binary(
          .logicalOr,
          .binary(
            .logicalAnd,
            .binary(
              .equal, .binary(.add, .integer(1), .binary(.multiply, .integer(2), .integer(3))), .integer(7)),
            .unary(.not, .name("x"))), .name("y")))
    #expect(yes == .index(.member(.name("a"), "b"), .integer(0)))
    #expect(no == .unary(.negate, .cast(.name("c"), "foo::bar")))
  }
}
