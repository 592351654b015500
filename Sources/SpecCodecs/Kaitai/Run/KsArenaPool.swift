import Synchronization

/// Arenas kept between frames, one per thread at work: a decode takes one
/// and gives it back, so a frame's reading reuses what the last one grew
/// and allocates nothing (`decode --stats` on a spec codec).
final class KsArenaPool: Sendable {
  private let free = Mutex<[KsArena]>([])

  func take() -> KsArena {
    free.withLock { $0.popLast() } ?? KsArena()
  }

  func give(_ arena: consuming KsArena) {
    var arena = arena
    if arena.isLarge { return }
    arena.reset()
    free.withLock { list in
      if list.count < 16 { list.append(arena) }
    }
  }
}
