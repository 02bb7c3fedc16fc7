import Foundation
import Visage

/// Live-stream mode on the command line: frames are handed to the task at the frame rate,
/// in real time as a camera would deliver them, and results are reported in input order as
/// they arrive, with `"dropped": true` for the frames the task's flow limiter skipped.
///
/// Results come back on the task's queue, in timestamp order, so when the result for one
/// frame arrives every earlier frame still waiting for one was dropped. Only frames not yet
/// reported are kept, so a long stream does not pile up in memory.
final class LiveStreamOutput<Result>: @unchecked Sendable {
  private struct Pending {
    let frame: Frame
    /// The frame's timestamp; `Int.max` for a frame whose timestamp is out of range, which
    /// is never submitted and so is reported by the last flush, after every frame before it.
    let timestampMs: Int
    var error: (any Error)?
  }

  private let lock = NSLock()
  private var pending: [Pending] = []
  private let reporter: Reporter
  private let report: (Frame, MPImage, Result) throws -> Void
  private let dropped: (Frame, MPImage, Int) -> Void

  /// `report` writes one processed frame; a dropped frame gets `droppedLine`'s line (with
  /// `"dropped": true` and an empty result). Both are written with the output lock held, one
  /// at a time. `taskName` names the task in text output.
  init(
    frames: InputFrames, reporter: Reporter, taskName: String,
    droppedLine: @escaping (Frame, MPImage, Int) throws -> JSON,
    report: @escaping (Frame, MPImage, Result) throws -> Void
  ) {
    self.reporter = reporter
    self.report = report
    dropped = { frame, image, timestampMs in
      do {
        reporter.emit(
          try droppedLine(frame, image, timestampMs), text: "\(frame.label): dropped (the \(taskName) was busy)")
      } catch {
        reporter.fail(frame, error: error)
      }
    }
  }

  /// Reads every frame, waits until it is due, and hands it over with `submit`; then waits
  /// for the task with `waitUntilIdle` and reports what is left.
  func run(_ frames: InputFrames, submit: (MPImage, Int) throws -> Void, waitUntilIdle: () -> Void) {
    let start = ContinuousClock.now
    while let frame = frames.next() {
      let t: Int
      do { t = try frames.timestamp(frame.index) } catch {
        lock.withLock { pending.append(Pending(frame: frame, timestampMs: .max, error: error)) }
        continue
      }
      let wait = start + .milliseconds(t) - .now
      if wait > .zero {
        Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
      }
      lock.withLock { pending.append(Pending(frame: frame, timestampMs: t)) }
      // A frame that fails here is reported in its turn, once the frames before it are.
      do { try submit(frame.image.get(), t) } catch { lock.withLock { pending[pending.count - 1].error = error } }
    }
    waitUntilIdle()
    lock.withLock { flush(before: Int.max) }
  }

  /// The task's callback: reports the frames before `timestampMs` as dropped (or failed),
  /// then this one.
  func deliver(_ result: Result?, timestampMs: Int, error: (any Error)?) {
    lock.withLock {
      flush(before: timestampMs)
      guard let first = pending.first, first.timestampMs == timestampMs else { return }
      pending.removeFirst()
      do {
        if let error { throw error }
        guard let result else { return }
        try report(first.frame, first.frame.image.get(), result)
      } catch {
        reporter.fail(first.frame, error: error)
      }
    }
  }

  /// Reports, in order, pending frames older than `timestampMs` that can no longer get a
  /// result: failed ones as failures, the rest as dropped.
  private func flush(before timestampMs: Int) {
    // The last flush, before `Int.max`, takes every frame left, those marked `Int.max` too.
    while let first = pending.first, first.timestampMs < timestampMs || timestampMs == .max {
      pending.removeFirst()
      if let error = first.error {
        reporter.fail(first.frame, error: error)
      } else {
        switch first.frame.image {
        case .success(let image): dropped(first.frame, image, first.timestampMs)
        case .failure(let error): reporter.fail(first.frame, error: error)
        }
      }
    }
  }
}
