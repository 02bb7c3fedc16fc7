import Dispatch
import Foundation

/// Runs live-stream frames one at a time on a private serial queue, as MediaPipe's
/// `FlowLimiterCalculator` (max in flight 1, max in queue 1) lets them through.
///
/// A frame submitted while another is being processed waits in a one-slot queue; a newer
/// frame takes the slot and the waiting one is dropped, with no callback. So processing
/// always moves on to the most recent frame, results come out in timestamp order, and
/// `submit` never blocks on inference.
final class LiveStreamRunner<Frame: Sendable>: @unchecked Sendable {
  private let queue: DispatchQueue
  private let lock = NSLock()
  private var busy = false
  private var waiting: (frame: Frame, timestamp: Int)?
  private let process: @Sendable (Frame, Int) -> Void

  /// - Parameter process: called on the private queue for each frame that is not dropped.
  init(label: String, process: @escaping @Sendable (Frame, Int) -> Void) {
    queue = DispatchQueue(label: label)
    self.process = process
  }

  /// Hands a frame over and returns at once. Returns false when it replaced (dropped) a
  /// frame that was still waiting.
  @discardableResult
  func submit(_ frame: Frame, timestamp: Int) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    if busy {
      let replaced = waiting != nil
      waiting = (frame, timestamp)
      return !replaced
    }
    busy = true
    queue.async { self.drain(first: (frame, timestamp)) }
    return true
  }

  /// Blocks until every frame handed over so far has been processed or dropped.
  func waitUntilIdle() {
    queue.sync {}
  }

  private func drain(first: (frame: Frame, timestamp: Int)) {
    var next: (frame: Frame, timestamp: Int)? = first
    while let item = next {
      process(item.frame, item.timestamp)
      lock.lock()
      next = waiting
      waiting = nil
      if next == nil { busy = false }
      lock.unlock()
    }
  }
}
