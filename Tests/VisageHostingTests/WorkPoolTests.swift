import Foundation
import Testing
import VisageHosting
import VisageTestSupport

/// The work pool the command line's batches and visage-server's requests run on: order,
/// bounds, refusal when full, shutdown; no process is spawned.
// Five minutes, as the other suites: in the whole test run on two cores, a test may wait over
// a minute for a thread while the parity suites hold both, and a one-minute limit counted
// that wait (a clean CI run failed so, the tests themselves taking milliseconds).
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct WorkPoolTests {
  /// A worker that records whether two threads ever used it at once.
  final class Worker: @unchecked Sendable {
    let lock = NSLock()
    var inUse = false
    var overlapped = false
    func use(for seconds: Double) {
      lock.withLock {
        if inUse { overlapped = true }
        inUse = true
      }
      Thread.sleep(forTimeInterval: seconds)
      lock.withLock { inUse = false }
    }
  }

  final class Counter: @unchecked Sendable {
    let lock = NSLock()
    var value = 0
    var peak = 0
    func add(_ n: Int) {
      lock.withLock {
        value += n
        peak = max(peak, value)
      }
    }
  }

  @Test(arguments: [1, 2, 3, 5])
  func deliversInInputOrderWithinTheWindow(workers: Int) {
    let pool = WorkPool(workers: (0..<workers).map { _ in Worker() }, queueDepth: workers + 1)
    defer { pool.shutdown() }
    var items = Array(0..<40).makeIterator()
    let outstanding = Counter()
    var delivered: [Int] = []
    let window = workers + 1
    pool.forEachInOrder(
      next: { () -> Int? in
        let item = items.next()
        if item != nil { outstanding.add(1) }
        return item
      }, window: window,
      work: { worker, item in
        // Later items often finish first.
        worker.use(for: Double((item * 7919) % 5) * 0.001)
        return item * 10
      },
      deliver: { output in
        delivered.append(output)
        outstanding.add(-1)
      })
    #expect(delivered == (0..<40).map { $0 * 10 })
    #expect(outstanding.peak <= window)
  }

  @Test func aWorkerIsUsedByOneThreadAtATime() {
    let workers = (0..<3).map { _ in Worker() }
    let pool = WorkPool(workers: workers, queueDepth: 8)
    var items = Array(0..<60).makeIterator()
    pool.forEachInOrder(next: { items.next() }, window: 6, work: { w, _ in w.use(for: 0.001) }, deliver: { _ in })
    pool.shutdown()
    #expect(!workers.contains { $0.overlapped })
  }

  /// The deadlock acbf996 fixed: an input read from standard input that is still awaited
  /// must not hold back the delivery of the one before it.
  @Test(arguments: [1, 2])
  func anAwaitedInputDoesNotHoldBackTheOneBefore(workers: Int) {
    let pool = WorkPool(workers: Array(repeating: (), count: workers), queueDepth: workers + 1)
    defer { pool.shutdown() }
    let firstDelivered = DispatchSemaphore(value: 0)
    var read = 0
    var delivered: [Int] = []
    pool.forEachInOrder(
      next: { () -> Int? in
        read += 1
        if read == 2 {
          // The second input arrives only once the first one's result is out.
          guard firstDelivered.wait(timeout: .now() + 10) == .success else { return nil }
        }
        return read <= 3 ? read : nil
      }, window: workers + 1, work: { _, item in item },
      deliver: { item in
        delivered.append(item)
        if item == 1 { firstDelivered.signal() }
      })
    #expect(delivered == [1, 2, 3])
  }

  @Test func noInputsDeliverNothing() {
    let pool = WorkPool(workers: [()], queueDepth: 0)
    var calls = 0
    pool.forEachInOrder(next: { nil as Int? }, window: 1, work: { _, i in i }, deliver: { _ in calls += 1 })
    pool.shutdown()
    #expect(calls == 0)
  }

  @Test func runAnswersEachCallerAsItFinishes() async throws {
    let pool = WorkPool(workers: [Worker(), Worker()], queueDepth: 4)
    defer { pool.shutdown() }
    let results = try await withThrowingTaskGroup(of: Int.self) { group in
      for i in 0..<6 {
        group.addTask {
          try await pool.run { worker in
            worker.use(for: 0.01)
            return i
          }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.sorted() == Array(0..<6))
  }

  @Test func runPassesTheJobsErrorOn() async {
    struct Failure: Error {}
    let pool = WorkPool(workers: [()], queueDepth: 0)
    defer { pool.shutdown() }
    await #expect(throws: Failure.self) { try await pool.run { _ in throw Failure() } }
  }

  /// One worker busy and `queueDepth` jobs waiting: the next caller is refused at once.
  @Test func aFullQueueRefusesAtOnce() async throws {
    let release = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let pool = WorkPool(workers: [()], queueDepth: 2)
    #expect(
      pool.trySubmit { _ in
        started.signal()
        release.wait()
      })
    started.wait()
    #expect(pool.trySubmit { _ in })
    #expect(pool.trySubmit { _ in })
    #expect(pool.waiting == 2 && pool.busy == 1)
    let begin = ContinuousClock.now
    await #expect(throws: WorkPoolError.full) { try await pool.run { _ in 1 } }
    #expect(ContinuousClock.now - begin < .seconds(1))
    release.signal()
    pool.shutdown()
    #expect(pool.waiting == 0 && pool.busy == 0)
  }

  @Test func shutdownFinishesQueuedJobsThenRefuses() async {
    let done = Counter()
    let pool = WorkPool(workers: [Worker()], queueDepth: 10)
    for _ in 0..<5 {
      pool.submit { w in
        w.use(for: 0.005)
        done.add(1)
      }
    }
    pool.shutdown()
    #expect(done.value == 5)
    #expect(!pool.trySubmit { _ in })
    await #expect(throws: WorkPoolError.shutDown) { try await pool.run { _ in 1 } }
  }
}
