import Synchronization

/// A flag runners working at once share: the first to fail sets it, and
/// the others stop at their next slice.
public final class FuzzStop: Sendable {
  private let stopped = Atomic<Bool>(false)

  public init() {}

  public var isSet: Bool { stopped.load(ordering: .relaxed) }

  public func set() { stopped.store(true, ordering: .relaxed) }
}
