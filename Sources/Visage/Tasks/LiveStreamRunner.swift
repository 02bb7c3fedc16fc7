import Dispatch
import VisageKernels

/// Runs live-stream frames one at a time on a private serial queue, as MediaPipe's
/// `FlowLimiterCalculator` (max in flight 1, max in queue 1) lets them through: the one place
/// that decides which frame of a live stream runs and which is dropped. The tasks' live-stream
/// mode runs on it; a task with video mode only gets the same flow limit from one of these
/// calling its video method (as `visage-server` does for `FaceAnalyzer`).
///
/// A frame submitted while another is being processed waits in a one-slot queue; a newer
/// frame takes the slot and the waiting one is dropped, never processed. So processing
/// always moves on to the most recent frame, frames are processed in the order submitted,
/// and `submit` never blocks on inference. `LiveStreamRecord` turns that order into one
/// answer per frame, dropped ones included.
public final class LiveStreamRunner<Frame: Sendable>: Sendable {
  private struct State: Sendable {
    var busy = false
    var waiting: (frame: Frame, timestamp: Int)?
  }

  private let queue: DispatchQueue
  private let state = LockedState(State())
  private let process: @Sendable (Frame, Int) -> Void

  /// - Parameters:
  ///   - label: the private queue's label.
  ///   - process: called on the private queue for each frame that is not dropped, one at a
  ///     time, in the order submitted.
  public init(label: String, process: @escaping @Sendable (Frame, Int) -> Void) {
    queue = DispatchQueue(label: label)
    self.process = process
  }

  /// Hands a frame over and returns at once. Returns false when it replaced (dropped) a
  /// frame that was still waiting.
  @discardableResult
  public func submit(_ frame: Frame, timestamp: Int) -> Bool {
    let (start, replaced) = state.withLock { state -> (Bool, Bool) in
      if state.busy {
        defer { state.waiting = (frame, timestamp) }
        return (false, state.waiting != nil)
      }
      state.busy = true
      return (true, false)
    }
    if start { queue.async { self.drain(first: (frame, timestamp)) } }
    return !replaced
  }

  /// Blocks until every frame handed over so far has been processed or dropped.
  public func waitUntilIdle() {
    queue.sync {}
  }

  private func drain(first: (frame: Frame, timestamp: Int)) {
    var next: (frame: Frame, timestamp: Int)? = first
    while let item = next {
      process(item.frame, item.timestamp)
      next = state.withLock { state in
        defer { state.waiting = nil }
        if state.waiting == nil { state.busy = false }
        return state.waiting
      }
    }
  }
}
