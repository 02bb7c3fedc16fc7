import VisageKernels

/// The calls every vision task (`FaceDetector`, `FaceLandmarker`, `FaceAnalyzer`) takes the
/// same way, whatever it computes: the running-mode check, one lock that serialises runs, the
/// increasing-timestamp rule of video and live-stream mode, and the live-stream hand-off with
/// its callback and flow limiting (`LiveStreamRunner`).
///
/// The task gives `process`, which turns an image (and its timestamp, nil for a still image)
/// into its output; `process` always runs under the lock, so it may use state the task does
/// not guard itself.
final class TaskRunner<Output>: Sendable {
  private typealias Process = (MPImage, Int?) throws -> Output
  private let runningMode: RunningMode
  // `work` guards everything `process` touches, `timestamps` the last timestamp. They are
  // apart so that handing a live-stream frame over never waits for the frame being
  // processed; where both are needed, `work` comes first.
  /// `process`, called only under this lock (so it may cross threads unchecked).
  private let work: LockedState<Unchecked<Process>>
  private let timestamps = LockedState(TimestampGate())
  /// Set once, by `startLiveStream`.
  private let liveStream = LockedState<LiveStreamRunner<MPImage>?>(nil)

  init(runningMode: RunningMode, process: @escaping (MPImage, Int?) throws -> Output) {
    self.runningMode = runningMode
    work = LockedState(Unchecked(process))
  }

  /// Starts the live-stream queue, which hands each frame's output or error to `deliver`
  /// (on its own thread) together with `owner`, the task. Call once, from the task's
  /// initializer, in live-stream mode.
  ///
  /// The queue holds the owner weakly, since the owner holds this runner: a frame that
  /// starts while the owner lives keeps it alive until its callback returns, and a frame
  /// still waiting when the owner has gone is dropped.
  func startLiveStream<Owner: AnyObject & Sendable>(
    label: String, owner: Owner, deliver: @escaping @Sendable (Owner, Result<Output, Error>, Int) -> Void
  ) {
    let runner = LiveStreamRunner<MPImage>(label: label) { [weak self, weak owner] image, timestamp in
      guard let self, let owner else { return }
      deliver(owner, Result { try self.work.withLock { try $0.value(image, timestamp) } }, timestamp)
    }
    liveStream.withLock { $0 = runner }
  }

  /// A still image, for a method of image mode named `method` (for its error message).
  func image(_ image: MPImage, method: String) throws -> Output {
    try runningMode.require(.image, for: method)
    return try run(image, timestamp: nil)
  }

  /// A still image through `body` in place of `process` (another entry of the same task,
  /// under the same lock), for a method of image mode.
  func image(_ image: MPImage, method: String, _ body: (MPImage) throws -> Output) throws -> Output {
    try runningMode.require(.image, for: method)
    return try work.withLock { _ in try body(image) }
  }

  /// A video frame, for a method of video mode.
  func videoFrame(_ image: MPImage, timestamp: Int, method: String) throws -> Output {
    try runningMode.require(.video, for: method)
    return try run(image, timestamp: timestamp)
  }

  /// Hands a live-stream frame to the queue and returns at once, for a method of live-stream
  /// mode; its output goes to `startLiveStream`'s `deliver`.
  func submit(_ image: MPImage, timestamp: Int, method: String) throws {
    try runningMode.require(.liveStream, for: method)
    let runner = liveStream.withLock { $0 }
    try timestamps.withLock {
      try $0.admit(timestamp)
      // The frame is processed later: it must own its pixels (`MPImage.withBorrowedPixels`).
      runner?.submit(image.owningPixels(), timestamp: timestamp)
    }
  }

  /// Runs `process` on a still image (`timestamp` nil) or on a frame whose timestamp must
  /// pass the gate, with no running-mode check: the caller has made it.
  private func run(_ image: MPImage, timestamp: Int?) throws -> Output {
    try work.withLock { process in
      if let timestamp { try timestamps.withLock { try $0.admit(timestamp) } }
      return try process.value(image, timestamp)
    }
  }

  /// Runs `body` under the lock and forgets the last timestamp, so a new video may start.
  func reset(_ body: () -> Void) {
    work.withLock { _ in
      body()
      timestamps.withLock { $0 = TimestampGate() }
    }
  }

  /// `body`'s value, read under the lock, so that it sees the state the last run left.
  func locked<T>(_ body: () -> T) -> T {
    work.withLock { _ in body() }
  }

  /// Blocks until every live-stream frame handed over so far is processed or dropped.
  func waitUntilIdle() {
    liveStream.withLock { $0 }?.waitUntilIdle()
  }
}
