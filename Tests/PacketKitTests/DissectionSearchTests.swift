import PacketKit
import Testing

/// `first(named:)` searches depth first: a node, then its children, then
/// its next sibling; the hit is the first in that order, compared against
/// a walk of the same tree written out here.
@Suite struct DissectionSearchTests {
  /// A random tree of a few levels whose nodes draw names from a short
  /// list (so most names occur several times) and carry their creation
  /// order as their range.
  static func tree(_ rng: inout SplitMix64, depth: Int, counter: inout Int) -> [DissectionNode] {
    let names = ["a", "b", "token", "payload", "x"]
    return (0..<rng.below(4)).map { _ in
      let name = names[rng.below(names.count)]
      counter += 1
      let range = counter..<counter + 1
      guard depth > 0, rng.chance(1, in: 2) else { return DissectionNode(name, .integer(1), range: range) }
      return DissectionNode(
        group: name, range: range, children: tree(&rng, depth: depth - 1, counter: &counter))
    }
  }

  static func walk(_ nodes: [DissectionNode], _ name: String) -> Range<Int>? {
    var stack = Array(nodes.reversed())
    while let node = stack.popLast() {
      if node.name == name { return node.range }
      stack.append(contentsOf: node.children.reversed())
    }
    return nil
  }

  @Test func findsTheFirstInDepthFirstOrder() {
    var rng = SplitMix64(seed: 0xDF5)
    var found = 0
    for _ in 0..<2_000 {
      var counter = 0
      let nodes = Self.tree(&rng, depth: 4, counter: &counter)
      for name in ["a", "token", "payload", "missing"] {
        let expected = Self.walk(nodes, name)
        #expect(nodes.first(named: name)?.range == expected, "\(name) in \(nodes)")
        if expected != nil { found += 1 }
      }
    }
    #expect(found > 2_000)
  }
}
