import Dispatch
import Foundation

/// The inputs of a batch, decoded ahead on other threads while the current one is processed,
/// and handed out in input order (`--threads` above 1 when one task takes every input: video
/// mode, and the image-mode searches and options `processSideBySide` leaves to one task).
///
/// Decoding a large photo can take longer than the models (a 12 MP JPEG decodes in about
/// 17 ms), and one task's threads split layers, not images; so with `depth` > 0 up to `depth`
/// inputs decode at once on the global queue. At most `depth` decoded images wait besides the
/// one being processed, so memory stays bounded. Order and results are those of one thread.
///
/// The inputs are read on a thread of their own, so that an input already read is processed
/// while the next is still awaited: a client that sends a record on standard input and waits
/// for its result before sending the next gets it.
final class DecodeAhead: @unchecked Sendable {
  private let frames: InputFrames
  private let depth: Int
  private let condition = NSCondition()
  /// Under `condition`: inputs read and decoding or decoded, in order, and whether the
  /// reader has found the end.
  private var pending: [PendingFrame] = []
  private var ended = false

  /// `depth` 0 decodes each input when it is asked for, as `InputFrames.next()` does; above
  /// 0 the reader thread starts here.
  init(_ frames: InputFrames, depth: Int) {
    self.frames = frames
    self.depth = depth
    if depth > 0 { Thread { self.read() }.start() }
  }

  /// The next input, decoded, or `nil` after the last.
  func next() -> Frame? {
    guard depth > 0 else { return frames.next() }
    condition.lock()
    while pending.isEmpty && !ended { condition.wait() }
    let first = pending.isEmpty ? nil : pending.removeFirst()
    condition.broadcast()
    condition.unlock()
    return first?.wait()
  }

  /// The reader: reads each input in turn and starts its decoding, while fewer than `depth`
  /// wait to be handed out.
  private func read() {
    while true {
      condition.lock()
      while pending.count >= depth { condition.wait() }
      condition.unlock()
      let job = frames.nextJob()
      condition.lock()
      if let job { pending.append(PendingFrame(job)) } else { ended = true }
      condition.broadcast()
      condition.unlock()
      if job == nil { return }
    }
  }
}

/// One input decoding on the global queue.
private final class PendingFrame: @unchecked Sendable {
  // Written once by the decoding thread before `done` is signalled, read after the wait:
  // the semaphore orders the two.
  private var frame: Frame?
  private let done = DispatchSemaphore(value: 0)

  init(_ job: @escaping @Sendable () -> Frame) {
    DispatchQueue.global().async {
      self.frame = job()
      self.done.signal()
    }
  }

  func wait() -> Frame {
    done.wait()
    return frame!
  }
}
