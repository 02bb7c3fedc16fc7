import Dispatch
import Foundation
import Visage

/// Image mode with `--threads N` above 1: N copies of the task, each on one thread, each
/// taking the next input, decoding it and running `process` on it; the results are reported
/// in input order.
///
/// Why copies rather than one task whose layers are split over N threads with the inputs
/// decoded ahead: a photo is mostly decoding, which one thread does alone, and splitting
/// small layers costs a hand-over at each. On 96 12 MP JPEGs two copies run 1.86-1.88× as
/// fast as one thread, where the split layers gave 1.71-1.78× (docs/speed.md). Results are
/// those of one thread, since every copy runs the same kernels on one thread. At most
/// `copies + 1` inputs are out and not yet reported, so memory stays bounded however slow one
/// input is.
///
/// `make` builds one copy; each starts on the inputs as soon as it is made, so the others'
/// models load meanwhile. An error making a copy is thrown once the copies already made have
/// finished the inputs.
func processSideBySide<Task, Output>(
  _ frames: InputFrames, reporter: Reporter, copies: Int, make: () throws -> Task,
  process: @escaping (Task, MPImage) throws -> Output, report: (Output, Frame, MPImage) throws -> Void
) throws {
  let work = SideBySideWork<Output>(frames: frames, window: copies + 1)
  try withoutActuallyEscaping(report) { report in
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
    let run = UncheckedBox(process)
    let group = DispatchGroup()
    defer { group.wait() }
    for _ in 0..<copies {
      let task = UncheckedBox(try make())
      DispatchQueue.global().async(group: group) {
        while let (slot, job) = work.take() {
          let frame = job()
          let outcome = Result { () throws -> (Output, MPImage) in
            let image = try frame.image.get()
            return (try run.value(task.value, image), image)
          }
          work.finish(slot, frame: frame, outcome: outcome, report: deliver.value)
        }
      }
    }
  }
}

/// A value handed to other threads although its type does not say it may be: the tasks
/// (which serialise their own calls, and each copy is used by one thread), and closures used
/// by one thread at a time under `SideBySideWork`'s order.
private struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// The inputs handed out to the copies and the outcomes waiting to be reported, under one
/// lock. `InputFrames` is read only here, under the lock, so in order.
private final class SideBySideWork<Output>: @unchecked Sendable {
  typealias Outcome = (Frame, Result<(Output, MPImage), any Error>)
  private let frames: InputFrames
  private let window: Int
  private let condition = NSCondition()
  /// Inputs handed out so far; the next one gets this slot.
  private var handedOut = 0
  /// Slots reported so far.
  private var reported = 0
  /// No input is left.
  private var exhausted = false
  private var done: [Int: Outcome] = [:]
  /// A thread is reporting: outcomes finished meanwhile wait for it.
  private var reporting = false

  init(frames: InputFrames, window: Int) {
    self.frames = frames
    self.window = window
  }

  /// The next input to decode and run, with its slot, or nil when none is left. Waits while
  /// `window` inputs are out and unreported.
  func take() -> (Int, @Sendable () -> Frame)? {
    condition.lock()
    defer { condition.unlock() }
    while !exhausted && handedOut - reported >= window { condition.wait() }
    guard !exhausted, let job = frames.nextJob() else {
      exhausted = true
      condition.broadcast()
      return nil
    }
    handedOut += 1
    return (handedOut - 1, job)
  }

  /// Stores a slot's outcome; then, unless another thread is reporting, reports every
  /// outcome that is next in order, outside the lock.
  func finish(
    _ slot: Int, frame: Frame, outcome: Result<(Output, MPImage), any Error>,
    report: (Frame, Result<(Output, MPImage), any Error>) -> Void
  ) {
    condition.lock()
    done[slot] = (frame, outcome)
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
