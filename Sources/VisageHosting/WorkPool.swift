import Foundation
import VisageKernels

/// Threads that each own one worker (a copy of a task, say) and take jobs from one bounded
/// queue: the command line's batches (`forEachInOrder`: results handed back in input order)
/// and visage-server's requests (`run`: each caller awaits its own result, as it finishes)
/// both run on it.
///
/// A worker is used by its own thread only, so a task copy runs one job at a time and needs
/// no lock of its own. At most `queueDepth` jobs wait for a worker besides those running:
/// `trySubmit` and `run` refuse a job beyond that at once, `submit` waits for room.
// Safe: the queue and the counts are touched only under `condition`; each worker only by its
// own thread (`Unchecked`, ordered by the pool's lock or by the order of delivery).
public final class WorkPool<Worker>: @unchecked Sendable {
  /// A job: what a worker's thread runs with its worker.
  public typealias Job = (Worker) -> Void

  /// How many jobs may wait for a worker.
  public let queueDepth: Int
  /// How many workers (and threads) the pool has.
  public let workerCount: Int

  private let condition = NSCondition()
  // Under `condition`: jobs waiting (the first at `head`), jobs running, and whether
  // `shutdown` was called.
  private var jobs: [Job?] = []
  private var head = 0
  private var running = 0
  private var stopping = false
  private var threadsLeft: Int

  /// Starts one thread per worker. `queueDepth` is at least 0 (0: a job is taken only by an
  /// idle worker). `name` names the threads.
  public init(workers: [Worker], queueDepth: Int, name: String = "visage.work-pool") {
    precondition(!workers.isEmpty, "a work pool needs a worker")
    self.queueDepth = max(0, queueDepth)
    workerCount = workers.count
    threadsLeft = workers.count
    for (i, worker) in workers.enumerated() {
      let box = Unchecked(worker)
      let thread = Thread { [self] in loop(box.value) }
      thread.name = "\(name).\(i)"
      // Room for the model stages' deepest calls, as a main thread has.
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  deinit { shutdown() }

  /// Jobs waiting for a worker now.
  public var waiting: Int { condition.withLock { jobs.count - head } }
  /// Jobs running now.
  public var busy: Int { condition.withLock { running } }

  /// Queues `job` unless the queue is full (`queueDepth` jobs waiting and no worker idle) or
  /// the pool is shutting down; says whether it was queued.
  @discardableResult
  public func trySubmit(_ job: @escaping Job) -> Bool {
    condition.withLock {
      guard !stopping, jobs.count - head < queueDepth + idle else { return false }
      enqueue(job)
      return true
    }
  }

  /// Queues `job`, waiting while the queue is full. Returns false only when the pool is
  /// shutting down.
  @discardableResult
  public func submit(_ job: @escaping Job) -> Bool {
    condition.withLock {
      while !stopping && jobs.count - head >= queueDepth + idle { condition.wait() }
      guard !stopping else { return false }
      enqueue(job)
      return true
    }
  }

  /// Runs `body` on the next free worker and returns what it returns. Throws
  /// `WorkPoolError.full` at once when the queue is full, unless `beyondDepth` (for callers
  /// that bound their jobs themselves, so that one finishing, whose worker has not yet
  /// counted itself free, never makes the next one refused), and `.shutDown` once `shutdown`
  /// was called. The caller's task is not cancelled into the job: a job that started finishes.
  public func run<T>(beyondDepth: Bool = false, _ body: @escaping (Worker) throws -> T) async throws -> T {
    let outcome: Unchecked<Result<T, any Error>> = try await withCheckedThrowingContinuation { continuation in
      let job: Job = { worker in continuation.resume(returning: Unchecked(Result { try body(worker) })) }
      let queued =
        beyondDepth
        ? condition.withLock {
          guard !stopping else { return false }
          enqueue(job)
          return true
        } : trySubmit(job)
      if !queued { continuation.resume(throwing: condition.withLock { stopping } ? WorkPoolError.shutDown : .full) }
    }
    return try outcome.value.get()
  }

  /// Waits until no job is queued or running.
  public func waitUntilIdle() {
    condition.withLock { while running > 0 || jobs.count > head { condition.wait() } }
  }

  /// Stops taking jobs, lets the queued and running ones finish, and returns once every
  /// thread has ended. Called again, it only waits.
  public func shutdown() {
    condition.withLock {
      stopping = true
      condition.broadcast()
      while threadsLeft > 0 { condition.wait() }
    }
  }

  /// Workers with no job, counted as room in the queue: a pool with depth 0 still takes a
  /// job when a worker is free.
  private var idle: Int { threadsLeft - running }

  private func enqueue(_ job: @escaping Job) {
    jobs.append(job)
    condition.broadcast()
  }

  private func loop(_ worker: Worker) {
    while true {
      var job: Job? = condition.withLock {
        while head == jobs.count && !stopping { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head > 64 && head * 2 > jobs.count {
          jobs.removeFirst(head)
          head = 0
        }
        running += 1
        return job
      }
      // No second binding of the closure (a `consume` of one crashed Swift 6.0's compiler):
      // `job` holds the only reference, released before the job counts as done, so that
      // `waitUntilIdle` returns only once no job's closure is alive (`forEachInOrder` lends
      // its caller's closures to the jobs).
      guard job != nil else { break }
      job!(worker)
      job = nil
      condition.withLock {
        running -= 1
        condition.broadcast()
      }
    }
    condition.withLock {
      threadsLeft -= 1
      condition.broadcast()
    }
  }
}

/// Why `WorkPool.run` refused a job.
public enum WorkPoolError: Error, Equatable, CustomStringConvertible {
  /// Every worker is busy and `queueDepth` jobs wait already.
  case full
  /// `shutdown` was called.
  case shutDown

  public var description: String {
    switch self {
    case .full: "every worker is busy and the queue is full"
    case .shutDown: "the pool is shutting down"
    }
  }
}
