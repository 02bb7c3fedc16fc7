import CThreads
import Foundation
import Synchronization

/// A fixed set of threads that run the tasks of one parallel loop at a time: the calling
/// thread plus `threadCount - 1` workers.
///
/// Made for inference: a model runs hundreds of loops of a few microseconds each, so a loop
/// must start in well under a microsecond. Workers therefore spin for a while after each
/// loop (about `spinDuration`) before they sleep on a condition, and a loop hands out its
/// tasks through one atomic ticket that holds the loop's number and the range of tasks not
/// yet taken (the caller takes from its front, workers from its back). A worker takes a
/// task only by advancing the ticket, so one that wakes late finds nothing left and never
/// touches a finished loop; the caller takes tasks too and returns when every task has
/// finished. Nothing is allocated per loop: the loop's body is a
/// closure prepared once (when a model is planned) and only referenced.
///
/// A worker that wakes on the caller's CPU can stay there: Linux will not migrate a thread
/// that ran within the last half millisecond, and these threads always have, so the worker
/// only gets the caller's leftovers and a run goes at one thread's speed for as long as the
/// process lives (`ThreadPool.statistics` shows it as a worker share near zero). So a worker that sees it shares the caller's CPU at the start of two loops in a row
/// moves itself off it once (on Linux; elsewhere placement is left to the system).
///
/// `run` may be called from any thread, but only one loop runs at a time; a call that
/// arrives while another is running runs its tasks itself, one after another.
public final class ThreadPool: Sendable {
  /// Threads that run a loop's tasks, the caller included.
  public let threadCount: Int
  /// How long an idle worker spins before it sleeps.
  public static let spinDuration = Duration.microseconds(200)

  /// The `Workers`, where the platform has their atomics (typed apart from its availability).
  private let core: (any AnyObject & Sendable)?

  /// A pool of `threadCount` threads (the caller and `threadCount - 1` workers); 1 or less
  /// makes a pool that runs every task on the caller. Where the platform lacks the atomics
  /// the workers need (before macOS 15 / iOS 18), every pool runs on the caller alone.
  public init(threadCount: Int) {
    if threadCount > 1, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      self.threadCount = threadCount
      core = Workers(count: threadCount - 1)
    } else {
      self.threadCount = 1
      core = nil
    }
  }

  deinit {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), let workers = core as? Workers {
      workers.stop()
    }
  }

  /// How the tasks of all loops so far were shared: those the callers ran, those the workers
  /// ran, and how often a worker moved off its caller's CPU. A worker share near zero with
  /// several threads means the workers are not getting a core.
  public struct Statistics: Sendable, Equatable {
    /// Tasks run by the threads that called `run`.
    public var callerTasks: Int
    /// Tasks run by the pool's own workers.
    public var workerTasks: Int
    /// Times a worker found itself on its caller's CPU and moved.
    public var moves: Int
  }

  /// Counts since the pool was made (all zero for a pool that runs on the caller alone).
  public var statistics: Statistics {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), let workers = core as? Workers else {
      return Statistics(callerTasks: 0, workerTasks: 0, moves: 0)
    }
    return workers.statistics
  }

  /// Runs `body(0) ... body(tasks - 1)`, spread over the pool's threads in no set order, and
  /// returns when all have finished. Tasks must not depend on one another.
  public func run(_ tasks: Int, _ body: @escaping (Int) -> Void) {
    guard tasks > 1, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *),
      let workers = core as? Workers, workers.run(tasks, body)
    else {
      for task in 0..<tasks { body(task) }
      return
    }
  }
}

/// The workers and the loop state they share.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
// Safe: the loop state is atomics; `body` and `loop` are written only by the caller holding
// `busy`, and a worker reads `body` only after taking a task from that loop's ticket.
private final class Workers: @unchecked Sendable {
  /// Loop number (bits 40...), end of the untaken tasks (bits 20..<40), first untaken task
  /// (bits 0..<20).
  private let ticket = Atomic<UInt64>(0)
  /// Tasks of the current loop that have finished.
  private let finished = Atomic<Int>(0)
  /// Whether a loop is running (its caller owns `body`).
  private let busy = Atomic<Bool>(false)
  /// Workers about to sleep or asleep on `wake`.
  private let sleepers = Atomic<Int>(0)
  private let stopping = Atomic<Bool>(false)
  /// The CPU the current loop's caller published it from (-1 where unknown).
  private let callerCPU = Atomic<Int>(-1)
  private let callerTasks = Atomic<Int>(0)
  private let workerTasks = Atomic<Int>(0)
  private let moves = Atomic<Int>(0)

  var statistics: ThreadPool.Statistics {
    ThreadPool.Statistics(
      callerTasks: callerTasks.load(ordering: .relaxed), workerTasks: workerTasks.load(ordering: .relaxed),
      moves: moves.load(ordering: .relaxed))
  }
  private let wake = NSCondition()
  /// The current loop's body: written by the caller before it publishes the ticket, read
  /// by a worker only after it has taken a task from that ticket.
  nonisolated(unsafe) private var body: ((Int) -> Void)?
  private var loop: UInt64 = 0

  private static let fieldBits: UInt64 = 20
  private static let fieldMask: UInt64 = (1 << 20) - 1
  static let maximumTasks = Int(fieldMask)

  init(count: Int) {
    for index in 0..<count {
      let thread = Thread { [self] in work() }
      thread.name = "visage-worker-\(index + 1)"
      thread.start()
    }
  }

  /// Asks the workers to exit once idle.
  func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    wake.lock()
    wake.broadcast()
    wake.unlock()
  }

  /// Runs one loop; false (having run nothing) when another loop is running or there are
  /// too many tasks to encode.
  func run(_ tasks: Int, _ body: @escaping (Int) -> Void) -> Bool {
    guard tasks <= Self.maximumTasks,
      busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    else { return false }
    self.body = body
    finished.store(0, ordering: .relaxed)
    callerCPU.store(Int(visage_current_cpu()), ordering: .relaxed)
    loop &+= 1
    ticket.store(loop << (2 * Self.fieldBits) | UInt64(tasks) << Self.fieldBits, ordering: .sequentiallyConsistent)
    if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
      wake.lock()
      wake.broadcast()
      wake.unlock()
    }
    var done = 0
    while let task = take() {
      body(task)
      done += 1
    }
    finished.add(done, ordering: .relaxed)
    callerTasks.add(done, ordering: .relaxed)
    // A worker still on its last task may have lost its core to another process: after a
    // short spin, offer ours.
    var spins = 0
    while finished.load(ordering: .acquiring) < tasks {
      spins += 1
      if spins > 2000 { sched_yield() } else { visage_spin_hint() }
    }
    self.body = nil
    busy.store(false, ordering: .releasing)
    return true
  }

  /// Takes a task of the current loop, or nil when none is left: the caller from the front
  /// (the ticket's next task goes up), workers from the back (its end comes down). A layer's
  /// tasks are rows in order, so on two threads the caller keeps the top of every tensor and
  /// the worker the bottom, and each reads mostly what it wrote itself into its own core's
  /// cache; whoever is faster still takes more.
  private func take(fromBack: Bool = false) -> Int? {
    var current = ticket.load(ordering: .acquiring)
    while true {
      let next = current & Self.fieldMask
      let end = (current >> Self.fieldBits) & Self.fieldMask
      guard next < end else { return nil }
      let desired = fromBack ? current - (1 << Self.fieldBits) : current + 1
      let (exchanged, original) = ticket.compareExchange(
        expected: current, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged { return Int(fromBack ? end - 1 : next) }
      current = original
    }
  }

  private func work() {
    let clock = ContinuousClock()
    var sharedLoops = 0
    var done = 0
    while !stopping.load(ordering: .relaxed) {
      if let task = take(fromBack: true) {
        body!(task)
        done += 1
        continue
      }
      // The loop's tasks are all taken, so it cannot end before this count arrives: one
      // atomic add per loop instead of one per task on the line the caller is polling.
      if done > 0 {
        finished.add(done, ordering: .releasing)
        workerTasks.add(done, ordering: .relaxed)
        done = 0
      }
      // Spin a while for the next loop (yielding the core after the first tenth, in case
      // others need it), then sleep until the ticket changes.
      let seen = ticket.load(ordering: .relaxed)
      let start = clock.now
      var spins = 0
      while ticket.load(ordering: .relaxed) == seen && !stopping.load(ordering: .relaxed) {
        spins += 1
        visage_spin_hint()
        guard spins % 64 == 0 else { continue }
        let spent = clock.now - start
        if spent > ThreadPool.spinDuration { break }
        if spent > ThreadPool.spinDuration / 10 { sched_yield() }
      }
      if ticket.load(ordering: .relaxed) != seen {
        sharedLoops = leaveCallersCPU(after: sharedLoops)
        continue
      }
      wake.lock()
      sleepers.add(1, ordering: .sequentiallyConsistent)
      while ticket.load(ordering: .sequentiallyConsistent) == seen && !stopping.load(ordering: .sequentiallyConsistent)
      {
        wake.wait()
      }
      sleepers.subtract(1, ordering: .sequentiallyConsistent)
      wake.unlock()
      sharedLoops = leaveCallersCPU(after: sharedLoops)
    }
  }

  /// Called by a worker when a new loop has started: counts loops in a row that found it on
  /// the caller's CPU, and after the second moves it elsewhere. Returns the new count.
  private func leaveCallersCPU(after sharedLoops: Int) -> Int {
    let caller = callerCPU.load(ordering: .relaxed)
    guard caller >= 0, Int(visage_current_cpu()) == caller else { return 0 }
    if sharedLoops == 0 { return 1 }
    if visage_move_off_cpu(Int32(caller)) != 0 { moves.add(1, ordering: .relaxed) }
    return 0
  }
}
