import Visage

/// The model files a front end makes its face tasks from: the bundled `face_landmarker.task`
/// and full-range detector, which the ranges, `accurate` and the presence check name.
public struct TaskModels: Sendable, Equatable {
  /// `face_landmarker.task`.
  public var bundle: String
  /// `face_detection_full_range.tflite`.
  public var fullRange: String

  public init(bundle: String, fullRange: String) {
    (self.bundle, self.fullRange) = (bundle, fullRange)
  }

  /// The repository's `Weights/` folder's (`BundledWeights`).
  public static func bundled() throws(BundledWeightsError) -> TaskModels {
    TaskModels(
      bundle: try BundledWeights.taskBundle(), fullRange: try BundledWeights.model(named: "face_detection_full_range"))
  }
}

/// One face task's settings by the option table's names (`TaskOptions`): the command line
/// fills it from its flags, visage-server from a query, the Python package from its options'
/// fields, and it alone turns them into the library's options (docs/decisions.md, "One path
/// from an option to the engine"). An option added to the table costs one row there and one
/// line here.
public struct TaskSettings: Sendable, Hashable {
  public let task: FaceTaskKind
  /// The options given, by table name, in canonical form (`true`, `0.4`, `all`).
  public private(set) var values: [String: String] = [:]
  /// The user's model file (`--model`, `model_asset_path`); nil for the bundled one.
  public var model: String?
  public var threadCount = 1
  public var runningMode = RunningMode.image
  /// The bound on a wider search's model runs (`BaseOptions.maximumSearchRuns`).
  public var maximumSearchRuns = BaseOptions.defaultMaximumSearchRuns
  /// The landmark smoothing filter's settings (the command line's `--smoothing-min-cutoff`
  /// and `--smoothing-beta`).
  public var landmarkFilter = LandmarkFilterParameters.mediaPipe

  public init(_ task: FaceTaskKind) { self.task = task }

  /// Sets the option `name` of the table to `value` (any spelling the option takes: `0.50`,
  /// `TRUE`); throws naming it when the task has no such option or it does not take the value.
  public mutating func set(_ name: String, _ value: String) throws(OptionError) {
    guard let option = TaskOptions.table(for: task).first(where: { $0.name == name }) else {
      throw OptionError(task, name, .unknown)
    }
    guard let canonical = option.canonical(value) else { throw OptionError(task, name, .notTaken(value)) }
    values[name] = canonical
  }

  /// A flag's value (false when absent).
  public func flag(_ name: String) -> Bool { value(name) == "true" }
  /// A number's value, or the table's default; nil for an option that is off unless given.
  public func number(_ name: String) -> Float? { Float(value(name)) }
  /// A count's value, or the table's default.
  public func count(_ name: String) -> Int { Int(value(name)) ?? 0 }
  /// A choice's value, or the table's default.
  public func choice(_ name: String) -> String { value(name) }

  private func value(_ name: String) -> String {
    values[name] ?? TaskOptions.option(name, of: task).defaultValue ?? ""
  }

  private func base(_ path: String) -> BaseOptions {
    BaseOptions(modelAssetPath: path, threadCount: threadCount, maximumSearchRuns: maximumSearchRuns)
  }

  /// Whether the user's model is a detector alone, which a range other than `short` would
  /// replace: refused rather than ignored.
  private var modelIsDetector: Bool { model.map { !Self.isBundle($0) } ?? false }

  /// Whether a model reference is a `.task` bundle (`x.task`, or an entry of one, `x.task:y`).
  private static func isBundle(_ path: String) -> Bool { path.hasSuffix(".task") || path.contains(".task:") }

  /// The detector's options: `range` short runs the model (the bundle's detector by default),
  /// full the bundled full-range model, all both at every scale. The presence check reads the
  /// landmark model from the bundle the detector came from, or the bundled one.
  public func detectorOptions(
    models: TaskModels, handler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)? = nil
  ) throws(OptionError) -> FaceDetectorOptions {
    let range = choice("range")
    if range != "short" && modelIsDetector {
      throw OptionError(
        task, "range", .conflict("give either {model} or {range} \(range), not both: the model is a detector"))
    }
    let bundle = model ?? models.bundle
    let detector = range == "full" ? models.fullRange : bundle
    let options = FaceDetectorOptions(baseOptions: base(detector), runningMode: runningMode)
    options.minDetectionConfidence = number("min-detection-confidence") ?? .nan
    options.minSuppressionThreshold = number("min-suppression-threshold") ?? .nan
    options.minFacePresenceConfidence = number("min-face-presence-confidence")
    // A detector file alone holds no landmark model for the check: the bundle does.
    if options.minFacePresenceConfidence != nil && !Self.isBundle(detector) {
      options.landmarksModelAssetPath = Self.isBundle(bundle) ? bundle : models.bundle
    }
    options.searchesAllScales = range == "all"
    options.fullRangeDetectorModelAssetPath = range == "all" ? models.fullRange : nil
    options.searchesAnyRotation = flag("any-rotation")
    options.isTrackingEnabled = flag("tracking")
    options.liveStreamHandler = handler
    try validated(options.validate)
    return options
  }

  /// The landmarker's options: `detector-range` full finds new faces with the bundled
  /// full-range model, all with both at every scale.
  public func landmarkerOptions(
    models: TaskModels, handler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)? = nil
  ) throws(OptionError) -> FaceLandmarkerOptions {
    let range = choice("detector-range")
    let options = FaceLandmarkerOptions(baseOptions: base(model ?? models.bundle))
    options.runningMode = runningMode
    options.numFaces = count("num-faces")
    options.minFaceDetectionConfidence = number("min-face-detection-confidence") ?? .nan
    options.minFacePresenceConfidence = number("min-face-presence-confidence") ?? .nan
    options.minTrackingConfidence = number("min-tracking-confidence") ?? .nan
    options.outputFaceBlendshapes = flag("blendshapes")
    options.outputFacialTransformationMatrixes = flag("transformation-matrices")
    options.outputFaceHeadPoses = flag("head-pose")
    options.outputFaceMetricLandmarks = flag("metric-mesh")
    options.outputFaceIrisDistances = flag("iris-distance")
    options.outputFaceScores = flag("scores")
    options.isTrackingEnabled = flag("tracking")
    options.cameraVerticalFieldOfView = number("camera-fov") ?? .nan
    options.usesImageFocalLength = flag("camera-from-exif")
    options.landmarkSmoothing = TaskOptions.smoothing(named: choice("smoothing")) ?? options.landmarkSmoothing
    options.landmarkFilter.minCutoff = landmarkFilter.minCutoff
    options.landmarkFilter.beta = landmarkFilter.beta
    options.faceDetectorModelAssetPath = range == "full" ? models.fullRange : nil
    options.searchesAllScales = range == "all"
    options.fullRangeDetectorModelAssetPath = range == "all" ? models.fullRange : nil
    options.searchesAnyRotation = flag("any-rotation")
    options.liveStreamHandler = handler
    try validated(options.validate)
    return options
  }

  /// The analyzer's options: `accurate` searches every scale with the bundled full-range
  /// model too.
  public func analyzerOptions(models: TaskModels) throws(OptionError) -> FaceAnalyzerOptions {
    let accurate = choice("performance") == "accurate"
    let options = FaceAnalyzerOptions(
      baseOptions: base(model ?? models.bundle), runningMode: runningMode,
      performanceMode: accurate ? .accurate : .fast, landmarkMode: flag("landmarks") ? .all : .none,
      contourMode: flag("contours") ? .all : .none, classificationMode: flag("classification") ? .all : .none,
      minFaceSize: number("min-face-size") ?? .nan, isTrackingEnabled: flag("tracking"))
    options.maximumFaceCount = count("max-faces")
    options.searchesAnyRotation = flag("any-rotation")
    options.fullRangeDetectorModelAssetPath = accurate ? models.fullRange : nil
    try validated(options.validate)
    return options
  }

  /// The library's refusal of the options, as this task's `OptionError`.
  private func validated(_ validate: () throws(VisionTaskError) -> Void) throws(OptionError) {
    do { try validate() } catch { throw OptionError(task, "", .library("\(error)")) }
  }
}
