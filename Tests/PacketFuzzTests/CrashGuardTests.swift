import Foundation
import Synchronization
import Testing

@testable import PacketFuzz

/// A crash saves the input of the worker whose thread crashed.
@Suite struct CrashGuardTests {
  @Test func eachThreadWouldSaveItsOwnInput() {
    // Slots 62 and 63: other tests' runners publish in slot 0 meanwhile.
    let inside = DispatchSemaphore(value: 0)
    let checked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let otherSaw = Mutex<[UInt8]?>(nil)
    let thread = Thread {
      CrashGuard.guarding([0xB0, 0xB1, 0xB2], by: CrashGuard.claim(worker: 63)) {
        inside.signal()
        checked.wait()
        otherSaw.withLock { $0 = CrashGuard.inputToSave() }
        release.signal()
      }
    }
    thread.start()
    inside.wait()
    // Both inputs are published now, each by its own thread.
    let mine = CrashGuard.guarding([0xA0], by: CrashGuard.claim(worker: 62)) { CrashGuard.inputToSave() }
    checked.signal()
    release.wait()
    #expect(mine == [0xA0])
    #expect(otherSaw.withLock { $0 } == [0xB0, 0xB1, 0xB2])
  }

  @Test func aSlotClaimedAgainByAThreadThatEndedStaysWithItsPublisher() {
    // Slots 60 and 61. Another thread claims this thread's slot and ends
    // (a worker of an earlier run did so), and a third thread publishes
    // in a slot before it: this thread still saves its own input.
    let mine = CrashGuard.claim(worker: 61)
    let ended = DispatchSemaphore(value: 0)
    Thread {
      _ = CrashGuard.claim(worker: 61)
      ended.signal()
    }.start()
    ended.wait()
    let published = DispatchSemaphore(value: 0)
    let checked = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    Thread {
      CrashGuard.guarding([0xD0], by: CrashGuard.claim(worker: 60)) {
        published.signal()
        checked.wait()
      }
      done.signal()
    }.start()
    published.wait()
    let saved = CrashGuard.guarding([0xC0, 0xC1], by: mine) { CrashGuard.inputToSave() }
    checked.signal()
    done.wait()
    #expect(saved == [0xC0, 0xC1])
  }

  /// The crash file is named for the target under test and the worker's
  /// seed; without a known target it is the pending one.
  @Test func theCrashFileNamesTheTargetAndTheWorkersSeed() {
    // Slots 58 and 59 (the others' tests use 60 to 63); prepared for all
    // 64 workers, so every slot has its reports.
    CrashGuard.prepare(directory: "/crashes", seed: 40, jobs: 64, targets: ["rider", "falconeye"])
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var paths: [String?] = []
    Thread {
      let publisher = CrashGuard.claim(worker: 59)
      paths.append(CrashGuard.guarding([1], by: publisher) { CrashGuard.pathToSave() })
      publisher.working(on: CrashGuard.targetIndex("falconeye"))
      paths.append(CrashGuard.guarding([2], by: publisher) { CrashGuard.pathToSave() })
      publisher.working(on: CrashGuard.targetIndex("rider"))
      paths.append(CrashGuard.guarding([3], by: CrashGuard.claim(worker: 58)) { CrashGuard.pathToSave() })
      done.signal()
    }.start()
    done.wait()
    #expect(
      paths == [
        "/crashes/crash-pending-seed40.bin", "/crashes/crash-falconeye-seed99.bin",
        // A new claim forgets the slot's target.
        "/crashes/crash-pending-seed40.bin",
      ])
    #expect(CrashGuard.targetIndex("legctrl") == -1)
  }
}
