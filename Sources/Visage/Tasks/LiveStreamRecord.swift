import VisageKernels

/// How one frame of a live stream ended, as `LiveStreamRecord` answers it.
public enum LiveStreamOutcome<Output> {
  /// The task processed the frame: its output, or the error it threw.
  case processed(Result<Output, any Error>)
  /// The flow limiter (`LiveStreamRunner`) dropped the frame: a newer one took its place.
  case dropped
  /// The frame never reached the task (it did not decode, its timestamp was refused, ...).
  case failed(any Error)
}

/// The frames of a live stream that still wait for their answer, in the order they came:
/// the one record of dropped frames, for a caller that answers every frame (`visage
/// --running-mode live-stream`, `visage-server`'s `/v1/live`).
///
/// Frames reach the task through a `LiveStreamRunner` (a task's live-stream mode or one of
/// the caller's own), which processes them in the order submitted and never processes a
/// frame it dropped. So when the output for one frame arrives, every earlier frame still
/// waiting was dropped, and a frame that never reached the task is answered as soon as every
/// frame before it is. Each frame gets one call of `answer`, in the order added, under the
/// record's lock (so one at a time); only frames not yet answered are kept, so a long stream
/// does not pile up in memory.
public final class LiveStreamRecord<Entry: Sendable, Output>: Sendable {
  private struct Pending: Sendable {
    let entry: Entry
    let timestamp: Int
    var failure: (any Error)?
  }

  private let pending = LockedState<[Pending]>([])
  private let answer: @Sendable (Entry, Int, LiveStreamOutcome<Output>) -> Void

  /// - Parameter answer: called once for each frame added, in the order added, with its
  ///   entry, its timestamp and how it ended.
  public init(
    answer: @escaping @Sendable (_ entry: Entry, _ timestamp: Int, _ outcome: LiveStreamOutcome<Output>) -> Void
  ) {
    self.answer = answer
  }

  /// Records a frame about to be handed to the task at `timestamp` (add it before handing it
  /// over: its output may come back at once). `failure`, when given, is why the frame is not
  /// handed over at all; it is answered with it in its turn.
  public func add(_ entry: Entry, timestamp: Int, failure: (any Error)? = nil) {
    pending.withLock { pending in
      pending.append(Pending(entry: entry, timestamp: timestamp, failure: failure))
      answerFailures(&pending)
    }
  }

  /// The frame added last at `timestamp` could not be handed over after all (the task
  /// refused it): it is answered with `error` in its turn.
  public func withdraw(timestamp: Int, error: any Error) {
    pending.withLock { pending in
      guard let i = pending.lastIndex(where: { $0.timestamp == timestamp && $0.failure == nil }) else { return }
      pending[i].failure = error
      answerFailures(&pending)
    }
  }

  /// The task's output (or error) for the frame at `timestamp`: the frames before it that
  /// still wait were dropped and are answered so, then this one.
  public func deliver(_ output: Result<Output, any Error>, timestamp: Int) {
    pending.withLock { pending in
      flush(&pending, before: timestamp)
      guard let first = pending.first, first.timestamp == timestamp, first.failure == nil else { return }
      pending.removeFirst()
      answer(first.entry, first.timestamp, .processed(output))
      answerFailures(&pending)
    }
  }

  /// The stream has ended and the task is idle (`waitUntilIdle`): every frame still waiting
  /// was dropped, and is answered so.
  public func finish() {
    pending.withLock { flush(&$0, before: nil) }
  }

  /// Answers the frames at the head that never reached the task: they wait for nothing.
  private func answerFailures(_ pending: inout [Pending]) {
    while let first = pending.first, let failure = first.failure {
      pending.removeFirst()
      answer(first.entry, first.timestamp, .failed(failure))
    }
  }

  /// Answers, in order, the frames before `timestamp` (all of them if nil): those that never
  /// reached the task as failed, the rest as dropped.
  private func flush(_ pending: inout [Pending], before timestamp: Int?) {
    while let first = pending.first, first.failure != nil || timestamp.map({ first.timestamp < $0 }) ?? true {
      pending.removeFirst()
      answer(first.entry, first.timestamp, first.failure.map { .failed($0) } ?? .dropped)
    }
  }
}
