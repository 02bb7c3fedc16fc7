/// How a vision task receives its images, as in MediaPipe Tasks.
public enum RunningMode: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Independent still images through the `detect(image:)` family.
  case image
  /// Frames of a decoded video with increasing timestamps, processed synchronously.
  case video
  /// Frames of a live camera feed, processed asynchronously; results go to a delegate.
  case liveStream

  /// MediaPipe's wording, as used in its error messages ("image mode", ...).
  public var description: String {
    switch self {
    case .image: "image mode"
    case .video: "video mode"
    case .liveStream: "live stream mode"
    }
  }

  /// The timestamps video and live-stream mode accept, in milliseconds: those whose value
  /// in nanoseconds, the unit landmark smoothing works in (as MediaPipe's does), fits an
  /// `Int64`. That is about ±292 years; anything outside is refused with
  /// `VisionTaskError.timestampOutOfRange` rather than overflowing.
  public static let timestampRangeInMilliseconds: ClosedRange<Int> = {
    let limit = Int(Int64.max / 1_000_000)
    return -limit...limit
  }()
}

/// Why a vision task refused a call or could not be created.
public enum VisionTaskError: Error, Equatable, CustomStringConvertible {
  /// An option outside its allowed range; the text names the option.
  case invalidOption(String)
  /// A method of another running mode, such as `detect(image:)` on a video task.
  case wrongRunningMode(method: String, required: RunningMode, current: RunningMode)
  /// A video or live-stream timestamp not strictly greater than the previous one.
  case timestampNotIncreasing(previous: Int, given: Int)
  /// A video or live-stream timestamp outside `RunningMode.timestampRangeInMilliseconds`.
  case timestampOutOfRange(given: Int)
  /// Live-stream mode without a delegate or handler to receive results.
  case missingLiveStreamDelegate
  /// A delegate or handler given in image or video mode, where it would never be called.
  case unexpectedLiveStreamDelegate
  /// The image cannot be processed (for example a mirrored orientation).
  case invalidImage(String)
  /// The model could not be loaded or does not have the shape this task needs.
  case invalidModel(String)
  /// The Swift task running the call was cancelled (an all-scales search checks between its
  /// passes).
  case cancelled

  /// A one-line explanation, in MediaPipe's wording where MediaPipe has one.
  public var description: String {
    switch self {
    case .invalidOption(let text): text
    case .wrongRunningMode(let method, let required, let current):
      "\(method) needs a task created with running mode \(required); this task's running mode is \(current)"
    case .timestampNotIncreasing(let previous, let given):
      "input timestamp must be monotonically increasing: got \(given) ms after \(previous) ms"
    case .timestampOutOfRange(let given):
      "input timestamp \(given) ms is outside the supported range \(RunningMode.timestampRangeInMilliseconds) ms"
    case .missingLiveStreamDelegate:
      "the task is in live stream mode, so a result delegate or handler must be set in its options"
    case .unexpectedLiveStreamDelegate:
      "the task is in image or video mode; a live stream delegate or handler must not be set in its options"
    case .invalidImage(let text): "invalid image: \(text)"
    case .invalidModel(let text): "invalid model: \(text)"
    case .cancelled: "cancelled: the Swift task running the search was cancelled"
    }
  }
}

extension RunningMode {
  /// Throws unless a task in this mode may be called through `method`, which needs `required`.
  func require(_ required: RunningMode, for method: String) throws(VisionTaskError) {
    guard self == required else { throw .wrongRunningMode(method: method, required: required, current: self) }
  }

  /// Throws when a live-stream receiver is missing in `.liveStream` mode, or given in another.
  func validate(hasLiveStreamReceiver: Bool) throws(VisionTaskError) {
    if self == .liveStream && !hasLiveStreamReceiver { throw .missingLiveStreamDelegate }
    if self != .liveStream && hasLiveStreamReceiver { throw .unexpectedLiveStreamDelegate }
  }
}

/// Throws for a named option outside 0...1 (NaN included).
func validateUnitInterval(_ options: [(name: String, value: Float)]) throws(VisionTaskError) {
  for (name, value) in options where !(0...1).contains(value) {
    throw .invalidOption("invalid `\(name)` option: value must be in the range [0.0, 1.0], got \(value)")
  }
}

/// Checks the timestamps of a video or live stream: each must lie in
/// `RunningMode.timestampRangeInMilliseconds` and exceed the last.
struct TimestampGate {
  private(set) var last: Int?

  mutating func admit(_ timestamp: Int) throws(VisionTaskError) {
    // Checked here, at the one door every frame comes through, so nothing behind it (the
    // smoother's nanoseconds) can overflow.
    guard RunningMode.timestampRangeInMilliseconds.contains(timestamp) else {
      throw .timestampOutOfRange(given: timestamp)
    }
    if let last, timestamp <= last { throw .timestampNotIncreasing(previous: last, given: timestamp) }
    last = timestamp
  }
}
