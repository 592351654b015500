import PacketKit
import Testing

/// `FlatFields.matches(tree)` replaces `flat.nodes == tree` in the fuzzer's
/// clean-fields check, so it must answer exactly as that comparison does:
/// checked on the unchanged tree and on every one-step change to it.
@Suite struct FlatFieldsMatchTests {
  /// A LegCtrl TELEMETRY frame's flat fields as docs/protocols.md §2 lays them
  /// out: a header group of four, then five scalars.
  static var telemetry: FlatFields {
    var flat = FlatFields()
    flat.message = "telemetry"
    flat.append(FlatFields.Field("header", .group(count: 4), range: 0..<4))
    flat.append(FlatFields.Field("version", .unsigned(1), range: 0..<1))
    flat.append(FlatFields.Field("msg_type", .enumeration("TELEMETRY", raw: 0x81), range: 1..<2))
    flat.append(FlatFields.Field("payload_len", .unsigned(8), unit: "bytes", range: 2..<3))
    flat.append(FlatFields.Field("reserved", .unsigned(0), range: 3..<4))
    flat.append(FlatFields.Field("state", .enumeration("ARMED", raw: 1), range: 4..<5))
    flat.append(FlatFields.Field("last_cmd_age_ms", .integer(-3), unit: "ms", range: 6..<8))
    flat.append(FlatFields.Field("speed", .number(12.5), unit: "%", range: 8..<10))
    flat.append(FlatFields.Field("command", .text("move"), range: 10..<16))
    return flat
  }

  /// Every tree one change away from `tree`: each node renamed, revalued,
  /// re-unit-ed, moved, reshaped, given or stripped of children, dropped;
  /// a node added; each group's children changed the same ways.
  static func variants(of tree: [DissectionNode]) -> [[DissectionNode]] {
    var result: [[DissectionNode]] = []
    for index in tree.indices {
      for changed in changes(of: tree[index]) {
        var copy = tree
        copy[index] = changed
        result.append(copy)
      }
      var dropped = tree
      dropped.remove(at: index)
      result.append(dropped)
      for (childIndex, child) in tree[index].children.enumerated() {
        for changed in changes(of: child) {
          var copy = tree
          copy[index].children[childIndex] = changed
          result.append(copy)
        }
        var copy = tree
        copy[index].children.remove(at: childIndex)
        result.append(copy)
      }
    }
    result.append(tree + [DissectionNode("extra", .integer(0), range: 0..<1)])
    result.append(Array(tree.reversed()))
    return result
  }

  static func changes(of node: DissectionNode) -> [DissectionNode] {
    var changes: [DissectionNode] = []
    func with(_ change: (inout DissectionNode) -> Void) {
      var copy = node
      change(&copy)
      changes.append(copy)
    }
    with { $0.name += "x" }
    with { $0.name = String($0.name.dropLast()) }
    with { $0.unit = $0.unit == nil ? "ms" : nil }
    with { $0.unit = $0.unit.map { $0 == "mV" ? "V" : "mV" } }
    with { $0.range = $0.range.lowerBound..<($0.range.upperBound + 1) }
    with { $0.range = ($0.range.lowerBound + 1)..<($0.range.upperBound + 1) }
    with { $0.shape = $0.shape == .leaf ? .object : .leaf }
    with { $0.shape = .array }
    with { $0.children.append(DissectionNode("child", .integer(1), range: 0..<1)) }
    switch node.value {
    case .integer(let v):
      with { $0.value = .integer(v + 1) }
      with { $0.value = .unsigned(UInt64(bitPattern: v)) }
      with { $0.value = .number(Double(v)) }
    case .unsigned(let v):
      with { $0.value = .unsigned(v + 1) }
      with { $0.value = .integer(Int64(v)) }
    case .number(let v):
      with { $0.value = .number(v.nextUp) }
      with { $0.value = .integer(Int64(v)) }
    case .string(let s):
      with { $0.value = .string(s + " ") }
      with { $0.value = .string(s.uppercased()) }
      with { $0.value = .enumeration(name: s, raw: 0) }
    case .enumeration(let name, let raw):
      with { $0.value = .enumeration(name: name, raw: raw + 1) }
      with { $0.value = .enumeration(name: name.lowercased(), raw: raw) }
      with { $0.value = .string(name) }
    case .null:
      with { $0.value = .integer(0) }
    default:
      break
    }
    return changes
  }

  @Test func theSameTreeMatches() {
    let flat = Self.telemetry
    #expect(flat.matches(flat.nodes))
    #expect(FlatFields().matches([]))
    #expect(!FlatFields().matches(flat.nodes))
  }

  @Test func everyOneStepChangeIsSeenAsEqualityWouldSeeIt() {
    let flat = Self.telemetry
    let variants = Self.variants(of: flat.nodes)
    #expect(variants.count > 100)
    var differing = 0
    for variant in variants {
      let equal = flat.nodes == variant
      #expect(flat.matches(variant) == equal, "\(variant.map(\.name))")
      if !equal { differing += 1 }
    }
    // Nearly every change makes a different tree (renaming a unit-less
    // node's missing unit does not).
    #expect(differing > variants.count - 20)
  }

  /// A group claiming more members than follow it gets those that do, as
  /// `nodes` builds it; a group among members is an empty group.
  @Test func shortAndNestedGroupsMatchWhatNodesBuilds() {
    var flat = FlatFields()
    flat.append(FlatFields.Field("outer", .group(count: 5), range: 0..<4))
    flat.append(FlatFields.Field("inner", .group(count: 1), range: 0..<2))
    flat.append(FlatFields.Field("a", .unsigned(7), range: 2..<3))
    let tree = flat.nodes
    #expect(tree.count == 1 && tree[0].children.count == 2)
    #expect(flat.matches(tree))
    for variant in Self.variants(of: tree) {
      #expect(flat.matches(variant) == (tree == variant))
    }
  }
}
