import Foundation
import Synchronization
import Testing
import VisageKernels

/// `ThreadPool`: every task runs exactly once, whatever the count, the pool size, or a loop
/// started from inside another.
@Suite struct ThreadPoolTests {
  /// One counter per task behind a lock, so the pool's threads never share unguarded
  /// memory. (Writing slots of one captured array from several threads, as this test once
  /// did, is a data race even when the slots differ: each write goes through the array's
  /// shared storage.) An `NSLock` rather than `Synchronization.Mutex`: the Mutex's futex
  /// path is invisible to ThreadSanitizer, which then reports its guarded writes as races.
  final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Int]
    init(_ count: Int) { slots = [Int](repeating: 0, count: count) }
    func increment(_ index: Int) { lock.withLock { slots[index] += 1 } }
    var values: [Int] { lock.withLock { slots } }
  }

  @Test(arguments: [1, 2, 3])
  func everyTaskRunsOnce(_ threads: Int) {
    let pool = ThreadPool(threadCount: threads)
    #expect(pool.threadCount >= 1 && pool.threadCount <= threads)
    for tasks in [0, 1, 2, 3, 7, 64, 1000] {
      let counts = Counts(tasks)
      for _ in 0..<20 {
        pool.run(tasks) { counts.increment($0) }
      }
      #expect(counts.values.allSatisfy { $0 == 20 }, "\(threads) threads, \(tasks) tasks")
    }
  }

  /// A loop started while another runs (here from one of its tasks) runs on its caller.
  @Test func nestedLoopsRunInline() {
    let pool = ThreadPool(threadCount: 2)
    let counts = Counts(4 * 5)
    pool.run(4) { outer in
      pool.run(5) { inner in counts.increment(outer * 5 + inner) }
    }
    #expect(counts.values.allSatisfy { $0 == 1 })
  }

  /// Pools come and go without leaving threads that touch freed state.
  @Test func poolsCanBeReleased() {
    for _ in 0..<10 {
      let pool = ThreadPool(threadCount: 2)
      let total = Atomic<Int>(0)
      pool.run(16) { _ in total.add(1, ordering: .relaxed) }
      #expect(total.load(ordering: .relaxed) == 16)
    }
  }
}
