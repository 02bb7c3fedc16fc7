/// Receives live-stream results of a `FaceDetector`: MediaPipe's
/// `FaceDetectorLiveStreamDelegate`.
///
/// Not `Sendable`, so that a plain `class X: NSObject, FaceDetectorLiveStreamDelegate`, as the
/// guides write it, conforms in Swift 6. The detector calls it from its own serial queue, as
/// MediaPipe does: state the delegate shares with other threads needs its own protection.
public protocol FaceDetectorLiveStreamDelegate: AnyObject {
  /// Called on the detector's private serial queue, in timestamp order, once for every
  /// frame that was processed (dropped frames get no call). Exactly one of `result` and
  /// `error` is non-nil.
  func faceDetector(
    _ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
    timestampInMilliseconds: Int, error: (any Error)?)
}

/// How to build a `FaceDetector`: MediaPipe's `FaceDetectorOptions`.
///
/// A class, as MediaPipe's is: `let options = FaceDetectorOptions()` and then setting its
/// properties works. `FaceDetector(options:)` takes a copy, so changing the options later does
/// not reach a detector already made.
public final class FaceDetectorOptions {
  /// The model: a BlazeFace short-range (128×128) or full-range (192×192) `.tflite`, or a
  /// `.task` bundle holding `face_detector.tflite`.
  public var baseOptions: BaseOptions
  /// How images arrive; decides which `detect` method may be called.
  public var runningMode: RunningMode
  /// The lowest score a face may have to be reported, in 0...1. Default 0.5.
  public var minDetectionConfidence: Float
  /// The IoU above which overlapping boxes are merged into one face, in 0...1. Default 0.3.
  public var minSuppressionThreshold: Float
  /// Receives live-stream results (held weakly, as on iOS). Either this or
  /// `liveStreamHandler` must be set in `.liveStream` mode, and neither in the others.
  public weak var faceDetectorLiveStreamDelegate: (any FaceDetectorLiveStreamDelegate)?
  /// A closure alternative to the delegate, with the same contract: result or error, and
  /// the frame's timestamp.
  public var liveStreamHandler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)?
  /// Visage: also find faces too small or too large for the model alone (`--range all`).
  /// The model must be the short-range one; it runs on the whole image, the full-range
  /// model runs on the whole image and on overlapping tiles, the short-range model on small
  /// tiles (faces down to about 20 px in large photos), and one weighted non-maximum
  /// suppression merges all they find from a score of 0.1 up (0.3 on the small tiles). The short-range model then looks at each of those candidates three
  /// times, centred and upright (twice a quarter of its input's width, then a third); a
  /// face's score is the product of the three looks' scores, and `minDetectionConfidence`
  /// applies to that (scores under 0.05 are never considered). Such a product runs lower
  /// than one model's score: 0.4 is the threshold that balances recall and false positives
  /// on the crowd sets (docs/every-face.md). Default false.
  public var searchesAllScales: Bool
  /// Visage: the full-range model for `searchesAllScales`; nil means
  /// `face_detection_full_range.tflite` in the directory of `baseOptions.modelAssetPath`.
  public var fullRangeDetectorModelAssetPath: String?
  /// Visage: also search the image turned by 90°, 180° and 270° (`--any-rotation`), so that
  /// faces lying sideways or upside down are found; four times the passes' work (about 3×
  /// the time of an all-scales search, whose looks are not repeated).
  /// Default false.
  public var searchesAnyRotation: Bool
  /// Visage: a second opinion on every face found. When set, the face landmark model runs
  /// on each detection's region (as the landmarker would) and a detection whose face
  /// presence is below this, in 0...1, is dropped; the others carry it as
  /// `Detection.facePresence`. It weeds out the wider searches' false positives (patterns
  /// the detectors score as faces) at about one landmark model run per detection. Needs
  /// `landmarksModelAssetPath`, or a `.task` bundle as the model. Default nil: no check, as
  /// in MediaPipe. (A presence equal to the threshold is kept; the landmarker's
  /// `minFacePresenceConfidence` keeps only a greater one, as MediaPipe's graph does.)
  public var minFacePresenceConfidence: Float?
  /// Visage: the face landmark model for `minFacePresenceConfidence`: a `.tflite`, or a
  /// `.task` bundle (its `face_landmarks_detector.tflite`); nil means the bundle
  /// `baseOptions.modelAssetPath` names.
  public var landmarksModelAssetPath: String?
  /// Visage: number faces (`FaceDetectorResult.faceTrackingIds`); a face keeps its number
  /// while it stays in view from call to call. Default false.
  public var isTrackingEnabled = false

  /// Creates options with MediaPipe's defaults.
  public init(
    baseOptions: BaseOptions = BaseOptions(), runningMode: RunningMode = .image,
    minDetectionConfidence: Float = 0.5, minSuppressionThreshold: Float = 0.3
  ) {
    self.baseOptions = baseOptions
    self.runningMode = runningMode
    self.minDetectionConfidence = minDetectionConfidence
    self.minSuppressionThreshold = minSuppressionThreshold
    searchesAllScales = false
    searchesAnyRotation = false
  }

  /// An independent copy (its `baseOptions` copied too); the delegate is the same object,
  /// still held weakly.
  public func copy() -> FaceDetectorOptions {
    let copy = FaceDetectorOptions(
      baseOptions: baseOptions.copy(), runningMode: runningMode, minDetectionConfidence: minDetectionConfidence,
      minSuppressionThreshold: minSuppressionThreshold)
    copy.faceDetectorLiveStreamDelegate = faceDetectorLiveStreamDelegate
    copy.liveStreamHandler = liveStreamHandler
    copy.searchesAllScales = searchesAllScales
    copy.fullRangeDetectorModelAssetPath = fullRangeDetectorModelAssetPath
    copy.searchesAnyRotation = searchesAnyRotation
    copy.minFacePresenceConfidence = minFacePresenceConfidence
    copy.landmarksModelAssetPath = landmarksModelAssetPath
    copy.isTrackingEnabled = isTrackingEnabled
    return copy
  }

  /// Throws the `VisionTaskError` that `FaceDetector(options:)` would throw for these options
  /// before reading any model: for thresholds (`minFacePresenceConfidence` too, when set)
  /// outside 0...1 (or NaN), a delegate or handler
  /// that does not fit the running mode, or a thread count outside 1...64.
  public func validate() throws(VisionTaskError) {
    try validateUnitInterval(
      [
        ("minDetectionConfidence", minDetectionConfidence), ("minSuppressionThreshold", minSuppressionThreshold),
      ] + (minFacePresenceConfidence.map { [("minFacePresenceConfidence", $0)] } ?? []))
    try runningMode.validate(hasLiveStreamReceiver: faceDetectorLiveStreamDelegate != nil || liveStreamHandler != nil)
    try baseOptions.validate()
  }
}
