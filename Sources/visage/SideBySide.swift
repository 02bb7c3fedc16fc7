import Dispatch
import Foundation
import Visage

/// Image mode with `--threads N` above 1: N copies of the task, each on one thread, each
/// taking the next input, decoding it and running `process` on it; the results are reported
/// in input order.
///
/// Why copies rather than one task whose layers are split over N threads with the inputs
/// decoded ahead: a photo is mostly decoding, which one thread does alone, and splitting
/// small layers costs a hand-over at each. On 96 12 MP JPEGs two copies ran 1.86-1.91× as
/// fast as one thread, the split layers 1.76-1.83× (docs/speed.md). Results are those of one
/// thread, since every copy runs the same kernels on one thread. At most `copies + 1` inputs
/// are decoded and not yet reported, so memory stays bounded however slow one input is.
///
/// Every copy is made before any input is read, so a task that cannot be made stops the
/// command as with one thread.
func processSideBySide<Task, Output>(
  _ frames: InputFrames, reporter: Reporter, copies: Int, make: () throws -> Task,
  process: @escaping @Sendable (Task, MPImage) throws -> Output, report: (Output, Frame, MPImage) throws -> Void
) throws {
  let tasks = try (0..<copies).map { _ in UncheckedBox(try make()) }
  let work = SideBySideWork<Output>(frames: frames, window: tasks.count + 1)
  withoutActuallyEscaping(report) { report in
    // Whichever copy finishes the next input in order reports it (and those after it that
    // are done), one thread at a time, so that no third thread wakes for every photo.
    let deliver = UncheckedBox { (frame: Frame, outcome: Result<(Output, MPImage), any Error>) in
      do {
        let (result, image) = try outcome.get()
        try report(result, frame, image)
      } catch {
        reporter.fail(source: frame.source, error: error)
      }
    }
    let group = DispatchGroup()
    for task in tasks {
      DispatchQueue.global().async(group: group) {
        while let (slot, outcome) = work.next(on: task.value, process) {
          work.finish(slot, outcome, report: deliver.value)
        }
      }
    }
    group.wait()
  }
}

/// A value handed to other threads although its type does not say it may be: a task copy,
/// used by one thread (the tasks serialise their calls anyway), and the reporting closure,
/// called by one thread at a time under `SideBySideWork`'s order.
private struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// The inputs handed out to the copies and the outcomes waiting to be reported.
///
/// Two locks: `input` while an input is read (a path or record from standard input may keep
/// a thread waiting), and `condition` for the slots and outcomes, so that finished inputs are
/// reported meanwhile. `InputFrames` is read only under `input`, so in order.
private final class SideBySideWork<Output>: @unchecked Sendable {
  typealias Outcome = (Frame, Result<(Output, MPImage), any Error>)
  private let frames: InputFrames
  private let window: Int
  private let input = NSLock()
  private let condition = NSCondition()
  /// Under `input`: no input is left.
  private var exhausted = false
  /// Under `condition`: inputs handed out so far (the next one gets this slot), and slots
  /// reported so far.
  private var handedOut = 0
  private var reported = 0
  private var done: [Int: Outcome] = [:]
  /// A thread is reporting: outcomes finished meanwhile wait for it.
  private var reporting = false

  init(frames: InputFrames, window: Int) {
    self.frames = frames
    self.window = window
  }

  /// The next input decoded and run by `process` with `task`, with its slot; nil when none
  /// is left. Nothing of the input is kept here beyond the outcome (a stream's job holds its
  /// frame), so that a reported image is not kept alive by the thread that reported it.
  func next<Task>(on task: Task, _ process: (Task, MPImage) throws -> Output) -> (Int, Outcome)? {
    guard let (slot, job) = take() else { return nil }
    let frame = job()
    return (
      slot,
      (
        frame,
        Result {
          let image = try frame.image.get()
          return (try process(task, image), image)
        }
      )
    )
  }

  /// The next input to decode and run, with its slot, or nil when none is left. Waits while
  /// `window` inputs are out and unreported.
  private func take() -> (Int, @Sendable () -> Frame)? {
    input.lock()
    defer { input.unlock() }
    if exhausted { return nil }
    condition.lock()
    while handedOut - reported >= window { condition.wait() }
    condition.unlock()
    guard let job = frames.nextJob() else {
      exhausted = true
      return nil
    }
    condition.lock()
    defer { condition.unlock() }
    handedOut += 1
    return (handedOut - 1, job)
  }

  /// Stores a slot's outcome; then, unless another thread is reporting, reports every
  /// outcome that is next in order, outside the lock. A slot counts as out until its report
  /// is done.
  func finish(_ slot: Int, _ outcome: consuming Outcome, report: (Frame, Result<(Output, MPImage), any Error>) -> Void)
  {
    condition.lock()
    done[slot] = outcome
    guard !reporting else {
      condition.unlock()
      return
    }
    reporting = true
    while let next = done.removeValue(forKey: reported) {
      condition.unlock()
      report(next.0, next.1)
      condition.lock()
      reported += 1
      condition.broadcast()
    }
    reporting = false
    condition.unlock()
  }
}
