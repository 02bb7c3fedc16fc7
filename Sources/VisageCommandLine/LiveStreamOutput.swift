import Foundation
import Visage
import VisageKernels

/// Live-stream mode on the command line: frames are handed to the task at the frame rate,
/// in real time as a camera would deliver them, and results are reported in input order as
/// they arrive, with `"dropped": true` for the frames the task's flow limiter skipped. Which
/// frames those are is the library's to say: the task's `LiveStreamRunner` drops them, and
/// `LiveStreamRecord` answers every frame in order.
final class LiveStreamOutput<Result>: Sendable {
  private let record: LiveStreamRecord<Frame, Result>

  /// `report` writes one processed frame; a dropped frame gets `droppedLine`'s line (with
  /// `"dropped": true` and an empty result). Both are called one at a time, in input order.
  /// `taskName` names the task in text output.
  init(
    reporter: Reporter, taskName: String, droppedLine: @escaping (Frame, MPImage, Int) throws -> JSON,
    report: @escaping (Frame, MPImage, Result) throws -> Void
  ) {
    // The reporter and the closures are used only from the record's `answer`, which runs
    // under the record's lock, one frame at a time.
    let writer = Unchecked(Writer(reporter: reporter, taskName: taskName, droppedLine: droppedLine, report: report))
    record = LiveStreamRecord { frame, timestampMs, outcome in writer.value.answer(frame, timestampMs, outcome) }
  }

  /// What answers each frame. A struct, not a tuple taken apart in the record's closure, which
  /// crashes Swift 6.0.3's SILGen (RValue.cpp's `sameHaveCleanups` assertion).
  private struct Writer {
    let reporter: Reporter
    let taskName: String
    let droppedLine: (Frame, MPImage, Int) throws -> JSON
    let report: (Frame, MPImage, Result) throws -> Void

    func answer(_ frame: Frame, _ timestampMs: Int, _ outcome: LiveStreamOutcome<Result>) {
      do {
        let image = try frame.image.get()
        switch outcome {
        case .processed(let result): try report(frame, image, result.get())
        case .dropped:
          reporter.emit(
            try droppedLine(frame, image, timestampMs), text: "\(frame.label): dropped (the \(taskName) was busy)")
        case .failed(let error): throw error
        }
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
        record.add(frame, timestamp: .max, failure: error)
        continue
      }
      let wait = start + .milliseconds(t) - .now
      if wait > .zero {
        Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
      }
      let image: MPImage
      do { image = try frame.image.get() } catch {
        record.add(frame, timestamp: t, failure: error)
        continue
      }
      record.add(frame, timestamp: t)
      // A frame that fails here is reported in its turn, once the frames before it are.
      do { try submit(image, t) } catch { record.withdraw(timestamp: t, error: error) }
    }
    waitUntilIdle()
    record.finish()
  }

  /// The task's callback.
  func deliver(_ result: Result?, timestampMs: Int, error: (any Error)?) {
    record.deliver(result.map { .success($0) } ?? .failure(error ?? CancellationError()), timestamp: timestampMs)
  }
}
