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
}

/// Why a vision task refused a call or could not be created.
public enum VisionTaskError: Error, Equatable, CustomStringConvertible {
  /// An option outside its allowed range; the text names the option.
  case invalidOption(String)
  /// A method of another running mode, such as `detect(image:)` on a video task.
  case wrongRunningMode(method: String, required: RunningMode, current: RunningMode)
  /// A video or live-stream timestamp not strictly greater than the previous one.
  case timestampNotIncreasing(previous: Int, given: Int)
  /// Live-stream mode without a delegate or handler to receive results.
  case missingLiveStreamDelegate
  /// A delegate or handler given in image or video mode, where it would never be called.
  case unexpectedLiveStreamDelegate
  /// The image cannot be processed (for example a mirrored orientation).
  case invalidImage(String)
  /// The model could not be loaded or does not have the shape this task needs.
  case invalidModel(String)

  public var description: String {
    switch self {
    case .invalidOption(let text): text
    case .wrongRunningMode(let method, let required, let current):
      "\(method) needs a task created with running mode \(required); this task's running mode is \(current)"
    case .timestampNotIncreasing(let previous, let given):
      "input timestamp must be monotonically increasing: got \(given) ms after \(previous) ms"
    case .missingLiveStreamDelegate:
      "the task is in live stream mode, so a result delegate or handler must be set in its options"
    case .unexpectedLiveStreamDelegate:
      "the task is in image or video mode; a live stream delegate or handler must not be set in its options"
    case .invalidImage(let text): "invalid image: \(text)"
    case .invalidModel(let text): "invalid model: \(text)"
    }
  }
}

/// Checks the timestamps of a video or live stream: each must exceed the last.
struct TimestampGate {
  private(set) var last: Int?

  mutating func admit(_ timestamp: Int) throws(VisionTaskError) {
    if let last, timestamp <= last { throw .timestampNotIncreasing(previous: last, given: timestamp) }
    last = timestamp
  }
}
