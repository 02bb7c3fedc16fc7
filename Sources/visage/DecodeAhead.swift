import Dispatch

/// The inputs of a batch, decoded ahead on other threads while the current one is processed,
/// and handed out in input order (`--threads` above 1 when one task takes every input: video
/// mode, and the image-mode searches and options `processSideBySide` leaves to one task).
///
/// Decoding a large photo can take longer than the models (a 12 MP JPEG decodes in about
/// 17 ms), and one task's threads split layers, not images; so with `depth` > 0 up to `depth`
/// inputs decode at once on the global queue. At most `depth` decoded images wait besides the
/// one being processed, so memory stays bounded. Order and results are those of one thread.
final class DecodeAhead {
  private let frames: InputFrames
  private let depth: Int
  private var pending: [PendingFrame] = []

  /// `depth` 0 decodes each input when it is asked for, as `InputFrames.next()` does.
  init(_ frames: InputFrames, depth: Int) {
    self.frames = frames
    self.depth = depth
  }

  /// The next input, decoded, or `nil` after the last.
  func next() -> Frame? {
    guard depth > 0 else { return frames.next() }
    // The current input plus `depth` behind it: the ones behind decode while it runs.
    while pending.count < depth + 1, let job = frames.nextJob() { pending.append(PendingFrame(job)) }
    return pending.isEmpty ? nil : pending.removeFirst().wait()
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
