import Foundation

/// Finds faces in images, video frames or a live stream: MediaPipe's Face Detector.
///
/// ```swift
/// let detector = try FaceDetector(modelPath: "Weights/face_landmarker.task")
/// let result = try detector.detect(image: try MPImage(contentsOfFile: "group.jpg"))
/// for face in result.detections { print(face.boundingBox, face.categories[0].score) }
/// ```
///
/// Numbers follow MediaPipe's CPU graph step by step (letterbox, OpenCV's fixed-point warp,
/// SSD anchors, sigmoid scores, weighted non-maximum suppression, projection, pixel
/// rounding), so results match `mediapipe` to within its own float noise. A full-range
/// model (192×192) is accepted too, for faces far from the camera. Beyond MediaPipe,
/// `searchesAllScales` and `searchesAnyRotation` widen the search to every face size and to
/// sideways and upside-down faces, at several times the cost, and
/// `minFacePresenceConfidence` has the face landmark model check every face found.
///
/// Every method may be called from any thread; calls are serialised internally.
// Safe: the tracker and the search's progress handler change only inside `runner`'s calls,
// under its lock; everything else is immutable once made.
public final class FaceDetector: @unchecked Sendable {
  /// A copy of the options the detector was created with (changing it changes nothing here).
  public var options: FaceDetectorOptions { settings.copy() }
  /// The task's own copy of its options, taken when it was created and never changed.
  private let settings: FaceDetectorOptions
  /// Whether the model (the one run on the whole image) is the full-range detector.
  public var isFullRange: Bool { search.primary.range == .full }

  private let search: FaceSearch
  private let runner: TaskRunner<FaceDetectorResult>
  /// The IDs' state between calls; only `runner`'s calls touch it.
  private let tracker: TrackerBox

  private final class TrackerBox {
    var tracker = FaceTracker()
  }

  /// Creates an image-mode detector with default options for the model at `modelPath`.
  public convenience init(modelPath: String) throws {
    try self.init(options: FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: modelPath)))
  }

  /// Creates a detector; throws `VisionTaskError` for bad options or an unusable model.
  public init(options: FaceDetectorOptions) throws {
    // A copy, taken first: the caller may change its options object later, or on another
    // thread, and neither may reach this task.
    let options = options.copy()
    try options.validate()
    settings = options
    let search = try ModelLoader.faceSearch(for: options, pool: options.baseOptions.threadPool())
    self.search = search
    let tracker = TrackerBox()
    self.tracker = tracker
    runner = TaskRunner(runningMode: options.runningMode) { image, timestamp in
      let (found, profile) = try search.detect(
        image, minScore: options.minDetectionConfidence, suppressionThreshold: options.minSuppressionThreshold)
      let detections = found.map { $0.detection(imageWidth: image.width, imageHeight: image.height) }
      var result = FaceDetectorResult(
        detections: detections,
        faceTrackingIds: options.isTrackingEnabled ? tracker.tracker.assign(detections.map(\.boundingBox)) : [],
        timestampInMilliseconds: timestamp ?? 0)
      result.searchProfile = profile
      return result
    }
    if options.runningMode == .liveStream {
      runner.startLiveStream(label: "visage.face-detector.live-stream", owner: self) { detector, outcome, timestamp in
        detector.deliver(outcome, timestamp: timestamp)
      }
    }
  }

  /// Detects faces in a still image. Needs running mode `.image`.
  public func detect(image: MPImage) throws -> FaceDetectorResult {
    try runner.image(image, method: "detect(image:)")
  }

  /// Detects faces in one frame of a video. Needs running mode `.video`; timestamps must
  /// increase from call to call.
  public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> FaceDetectorResult {
    try runner.videoFrame(
      image, timestamp: timestampInMilliseconds, method: "detect(videoFrame:timestampInMilliseconds:)")
  }

  /// Hands a live-stream frame over and returns at once; the result goes to the options'
  /// delegate or handler. Needs running mode `.liveStream`; timestamps must increase.
  ///
  /// While a frame is being processed the newest frame handed over waits, and any older
  /// waiting frame is dropped without a callback (MediaPipe's flow limiter).
  public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
    try runner.submit(image, timestamp: timestampInMilliseconds, method: "detectAsync(image:timestampInMilliseconds:)")
  }

  /// Calls `handler` as every all-scales or any-rotation search goes (`SearchProgress`), on
  /// the searching thread (`visage detect`'s progress line); nil stops the calls.
  package func reportSearchProgress(to handler: (@Sendable (SearchProgress) -> Void)?) {
    runner.locked { search.progress = handler }
  }

  /// Visage: forgets tracked faces and the last timestamp, so the next frame may start an
  /// unrelated video (timestamps from 0 again); tracking IDs keep counting up. In live-stream
  /// mode, call it once `waitUntilIdle()` has returned.
  public func resetTracking() {
    runner.reset { tracker.tracker.reset() }
  }

  /// Blocks until every live-stream frame handed over so far is processed or dropped, and
  /// its callback has returned. Useful at the end of a stream.
  public func waitUntilIdle() {
    runner.waitUntilIdle()
  }

  private func deliver(_ outcome: Result<FaceDetectorResult, Error>, timestamp: Int) {
    let (result, error) = (try? outcome.get(), outcome.failure)
    if let delegate = settings.faceDetectorLiveStreamDelegate {
      delegate.faceDetector(self, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
    }
    settings.liveStreamHandler?(result, timestamp, error)
  }
}

extension Result {
  /// The error, if this is a failure.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
