/// Where a value is in a message, kept as its steps (`payload`, `poses` 0,
/// `joints` 3) and written out as `payload.poses[0].joints[3]` only when a
/// diagnostic names it. Built as text, every pose and joint of a broadcast
/// made its path string before anything was wrong (a sixth of decoding a
/// small pose broadcast).
///
/// The keys of FalconEye's nested objects and arrays are the schema's own
/// (static text, copied without reference counting); a key read from the
/// input is only ever the last step of a message's text (`appending(_:)`).
struct FalconEyeKeyPath: CustomStringConvertible {
  /// One key, with the index into it when it names an array element
  /// (`index` < 0: none).
  private struct Step {
    var key: StaticString
    var index: Int
  }

  /// The deepest nesting of FalconEye's messages is two steps below the
  /// root (`payload.poses[0].joints[3]`); more are dropped and written `…`.
  private static let capacity = 4
  private var root: StaticString
  private var steps: (Step, Step, Step, Step)
  private var count = 0
  private var dropped = false

  /// The path of the envelope's payload, or "" for a bare inner object.
  init(root: StaticString) {
    self.root = root
    let none = Step(key: "", index: -1)
    steps = (none, none, none, none)
  }

  static let payload = FalconEyeKeyPath(root: "payload")
  static let bare = FalconEyeKeyPath(root: "")

  /// The path of member `key` of the object here.
  func appending(_ key: StaticString) -> FalconEyeKeyPath {
    var path = self
    guard count < Self.capacity else {
      path.dropped = true
      return path
    }
    withUnsafeMutableBytes(of: &path.steps) { steps in
      steps.storeBytes(
        of: Step(key: key, index: -1), toByteOffset: count * MemoryLayout<Step>.stride, as: Step.self)
    }
    path.count += 1
    return path
  }

  /// The path of element `index` of the array here.
  func index(_ index: Int) -> FalconEyeKeyPath {
    guard count > 0, !dropped, self[count - 1].index < 0 else {
      var path = appending("" as StaticString)
      path.setIndex(index)
      return path
    }
    var path = self
    path.setIndex(index)
    return path
  }

  private mutating func setIndex(_ index: Int) {
    guard count > 0, !dropped else { return }
    var step = self[count - 1]
    step.index = index
    let offset = (count - 1) * MemoryLayout<Step>.stride
    withUnsafeMutableBytes(of: &steps) { $0.storeBytes(of: step, toByteOffset: offset, as: Step.self) }
  }

  private subscript(position: Int) -> Step {
    withUnsafeBytes(of: steps) {
      $0.load(fromByteOffset: position * MemoryLayout<Step>.stride, as: Step.self)
    }
  }

  /// The text of member `key` of the object here (a key from the input).
  func appending(_ key: String) -> String {
    let text = description
    return text.isEmpty ? key : text + "." + key
  }

  var description: String {
    var text = root.description
    for position in 0..<count {
      let step = self[position]
      let key = step.key.description
      if !key.isEmpty { text += text.isEmpty ? key : "." + key }
      if step.index >= 0 { text += "[\(step.index)]" }
    }
    return dropped ? text + "…" : text
  }
}
