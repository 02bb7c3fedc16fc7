import Foundation

/// How to build a `FaceAnalyzer`: Google ML Kit's `FaceDetectorOptions`, plus the model paths
/// and running mode a Visage task needs.
///
/// A class, like the other tasks' options: `FaceAnalyzer(options:)` takes a copy, so changing
/// the options later does not reach an analyzer already made. (For ML Kit's own names, see
/// the `VisageMLKit` module.)
public final class FaceAnalyzerOptions {
  /// Speed against accuracy, as in ML Kit.
  public enum PerformanceMode: String, Sendable, CaseIterable {
    /// The short-range detector (faces within about 2 m of the camera).
    case fast
    /// Every scale: the short-range detector on the whole image and on small tiles, the
    /// full-range one on the whole image and on larger tiles, every candidate confirmed by
    /// three looks of the short-range detector (`FaceDetectorOptions.searchesAllScales`), so
    /// small, distant and close-up faces are all found.
    case accurate
  }

  /// Whether to locate the ten `FaceLandmarkType` points.
  public enum LandmarkMode: String, Sendable, CaseIterable {
    /// No landmarks.
    case none
    /// All ten landmarks of every face.
    case all
  }

  /// Whether to trace the fifteen `FaceContourType` outlines.
  public enum ContourMode: String, Sendable, CaseIterable {
    /// No contours.
    case none
    /// All fifteen contours of every face (ML Kit gives them for the most prominent face only).
    case all
  }

  /// Whether to estimate the smiling and eye-open probabilities.
  public enum ClassificationMode: String, Sendable, CaseIterable {
    /// No probabilities.
    case none
    /// Smiling, left eye open and right eye open, for every face.
    case all
  }

  /// The `face_landmarker.task` bundle (detector, face mesh, blendshapes and geometry).
  public var baseOptions: BaseOptions
  /// The full-range detector for `.accurate`; nil means `face_detection_full_range.tflite` in
  /// the folder of the bundle.
  public var fullRangeDetectorModelAssetPath: String?
  /// `.image` (the `analyze(image:)` method) or `.video` (`analyze(videoFrame:...)`, which
  /// follows faces from frame to frame). Live stream is not supported.
  public var runningMode: RunningMode
  /// Fast or accurate. Default `.fast`.
  public var performanceMode: PerformanceMode
  /// Visage: also look for faces in the image turned by 90°, 180° and 270°, so sideways and
  /// upside-down faces are analyzed too; four times the passes' work. Default false.
  public var searchesAnyRotation: Bool = false
  /// Landmarks or none. Default `.none`.
  public var landmarkMode: LandmarkMode
  /// Contours or none. Default `.none`.
  public var contourMode: ContourMode
  /// Probabilities or none. Default `.none`.
  public var classificationMode: ClassificationMode
  /// The narrowest face reported, as its width over the image's width, in 0...1. Default 0.1.
  public var minFaceSize: Float
  /// Give each face a `trackingID` that lasts while it stays in view. Default false.
  public var isTrackingEnabled: Bool
  /// Visage: the most faces analyzed per image, at least 1. Default 10.
  public var maximumFaceCount: Int

  /// Creates options with ML Kit's defaults.
  public init(
    baseOptions: BaseOptions = BaseOptions(), runningMode: RunningMode = .image,
    performanceMode: PerformanceMode = .fast, landmarkMode: LandmarkMode = .none, contourMode: ContourMode = .none,
    classificationMode: ClassificationMode = .none, minFaceSize: Float = 0.1, isTrackingEnabled: Bool = false
  ) {
    self.baseOptions = baseOptions
    self.runningMode = runningMode
    self.performanceMode = performanceMode
    self.landmarkMode = landmarkMode
    self.contourMode = contourMode
    self.classificationMode = classificationMode
    self.minFaceSize = minFaceSize
    self.isTrackingEnabled = isTrackingEnabled
    self.maximumFaceCount = 10
  }

  /// An independent copy (its `baseOptions` copied too).
  public func copy() -> FaceAnalyzerOptions {
    let copy = FaceAnalyzerOptions(
      baseOptions: baseOptions.copy(), runningMode: runningMode, performanceMode: performanceMode,
      landmarkMode: landmarkMode, contourMode: contourMode, classificationMode: classificationMode,
      minFaceSize: minFaceSize, isTrackingEnabled: isTrackingEnabled)
    copy.fullRangeDetectorModelAssetPath = fullRangeDetectorModelAssetPath
    copy.searchesAnyRotation = searchesAnyRotation
    copy.maximumFaceCount = maximumFaceCount
    return copy
  }

  /// Throws the `VisionTaskError` that `FaceAnalyzer(options:)` would throw for these options
  /// before reading any model: for `minFaceSize` outside 0...1 (or NaN), `maximumFaceCount`
  /// below 1, live-stream mode, or a thread count outside 1...64.
  public func validate() throws(VisionTaskError) {
    try validateUnitInterval([("minFaceSize", minFaceSize)])
    guard maximumFaceCount >= 1 else {
      throw .invalidOption("invalid `maximumFaceCount` option: must be at least 1, got \(maximumFaceCount)")
    }
    guard runningMode != .liveStream else {
      throw .invalidOption("FaceAnalyzer runs in image or video mode; live stream mode is not supported")
    }
    try landmarkerOptions.validate()
  }

  /// The landmarker options that compute what these options ask for.
  var landmarkerOptions: FaceLandmarkerOptions {
    let options = FaceLandmarkerOptions(
      baseOptions: baseOptions.copy(), runningMode: runningMode, numFaces: maximumFaceCount,
      outputFaceBlendshapes: classificationMode == .all, outputFacialTransformationMatrixes: true)
    if performanceMode == .accurate {
      options.searchesAllScales = true
      options.fullRangeDetectorModelAssetPath = fullRangeDetectorModelAssetPath
    }
    options.searchesAnyRotation = searchesAnyRotation
    return options
  }
}
