/// Where a value is in a message, kept as its steps (`payload`, `poses` 0,
/// `joints` 3) and written out as `payload.poses[0].joints[3]` only when a
/// diagnostic names it. Built as text, every pose and joint of a broadcast
/// made its path string before anything was wrong.
///
/// The keys of FalconEye's nested objects and arrays are the schema's own
/// static text, kept as pointers (a path is 65 bytes, copied without
/// reference counting; `@unchecked Sendable` because what they point to
/// never changes). A key read from the input is only ever the last step of
/// a diagnostic's text (`appending(_: String)`).
struct FalconEyeKeyPath: CustomStringConvertible, @unchecked Sendable {
  /// One key (static UTF-8), with the index into it when it names an array
  /// element (`index` < 0: none).
  private struct Step {
    var key: UnsafePointer<UInt8>
    var length: UInt32
    var index: Int32

    init(_ key: StaticString, index: Int32 = -1) {
      self.key = key.utf8Start
      length = UInt32(truncatingIfNeeded: key.utf8CodeUnitCount)
      self.index = index
    }

    var text: String { String(decoding: UnsafeBufferPointer(start: key, count: Int(length)), as: UTF8.self) }
  }

  /// The deepest of FalconEye's paths has four steps
  /// (`payload.poses[0].joints[3].position[2]`); more are dropped and
  /// written `…`.
  private static let capacity = 4
  private var steps: (Step, Step, Step, Step)
  /// The steps in use; `capacity + 1` when some were dropped.
  private var count: UInt8 = 0

  private init() {
    let none = Step("")
    steps = (none, none, none, none)
  }

  /// The envelope's payload, and a bare inner object (the empty path).
  static let payload = FalconEyeKeyPath().appending("payload" as StaticString)
  static let bare = FalconEyeKeyPath()

  /// The path of member `key` of the object here.
  func appending(_ key: StaticString) -> FalconEyeKeyPath {
    var path = self
    path.append(Step(key))
    return path
  }

  /// The path of element `index` of the array here.
  func index(_ index: Int) -> FalconEyeKeyPath {
    var path = self
    let index = Int32(clamping: index)
    if count > 0, count <= Self.capacity, self[Int(count) - 1].index < 0 {
      path[Int(count) - 1].index = index
    } else {
      path.append(Step("", index: index))  // an element of an element: devicePose[1][2]
    }
    return path
  }

  private mutating func append(_ step: Step) {
    guard count < Self.capacity else {
      count = UInt8(Self.capacity + 1)
      return
    }
    self[Int(count)] = step
    count += 1
  }

  private subscript(position: Int) -> Step {
    get {
      withUnsafeBytes(of: steps) {
        $0.load(fromByteOffset: position * MemoryLayout<Step>.stride, as: Step.self)
      }
    }
    set {
      withUnsafeMutableBytes(of: &steps) {
        $0.storeBytes(of: newValue, toByteOffset: position * MemoryLayout<Step>.stride, as: Step.self)
      }
    }
  }

  /// The text of member `key` of the object here (a key from the input).
  func appending(_ key: String) -> String {
    let text = description
    return text.isEmpty ? key : text + "." + key
  }

  var description: String {
    var text = ""
    for position in 0..<min(Int(count), Self.capacity) {
      let step = self[position]
      if step.length > 0 { text += text.isEmpty ? step.text : "." + step.text }
      if step.index >= 0 { text += "[\(step.index)]" }
    }
    return count > Self.capacity ? text + "…" : text
  }
}
