import Visage
import VisageHosting
import VisageImageIO
import VisageReports

/// What the server's tasks are made from: the bundled models, found once at start, and the
/// bound on a wider search's work that every task is given.
public struct ServerModels: Sendable {
  /// `face_landmarker.task`.
  public let bundle: String
  /// `face_detection_full_range.tflite`.
  public let fullRange: String
  /// A bundled photo with one face, for warming up and `/readyz`.
  public let sampleImage: String
  /// The most model runs one wider search (every scale, any rotation) may plan
  /// (`BaseOptions.maximumSearchRuns`, `--max-search-runs`).
  public var maximumSearchRuns = BaseOptions.defaultMaximumSearchRuns

  public init(bundle: String, fullRange: String, sampleImage: String) {
    self.bundle = bundle
    self.fullRange = fullRange
    self.sampleImage = sampleImage
  }

  /// The models in the repository's `Weights/` folder, found as `visage` finds them.
  public static func bundled() throws -> ServerModels {
    ServerModels(
      bundle: try BundledWeights.taskBundle(), fullRange: try BundledWeights.model(named: "face_detection_full_range"),
      sampleImage: try BundledWeights.sampleImage())
  }
}

/// One task made for one `TaskRequest`, answering one image at a time in image mode with the
/// JSON object a `visage` line gives for it.
public final class ServedTask: Sendable {
  private let respond: @Sendable (DecodedImage, String) throws -> JSONValue

  /// Makes the request's task on one thread (the pool runs copies side by side); an option
  /// the library refuses is a 400.
  public init(_ request: TaskRequest, models: ServerModels) throws {
    switch request.kind {
    case .detect:
      let detector = try Self.library {
        try FaceDetector(options: request.detectorOptions(models: models, handler: nil))
      }
      respond = { decoded, source in
        try report(decoded, source: source, result: try detector.detect(image: decoded.image))
      }
    case .landmark:
      let landmarker = try Self.library {
        try FaceLandmarker(options: request.landmarkerOptions(models: models, handler: nil))
      }
      let outputs = request.landmarkerOutputs
      respond = { decoded, source in
        try report(decoded, source: source, result: try landmarker.detect(image: decoded.image), outputs: outputs)
      }
    case .analyze:
      let analyzer = try Self.library {
        try FaceAnalyzer(options: request.analyzerOptions(models: models, video: false))
      }
      respond = { decoded, source in
        try report(decoded, source: source, result: FacesResult(faces: try analyzer.analyze(image: decoded.image)))
      }
    }
  }

  /// The response for one decoded image, named `source`.
  public func respond(to image: DecodedImage, source: String) throws -> JSONValue {
    try respond(image, source)
  }

  /// Runs a library call that makes a task: its refusal of an option is the client's error.
  public static func library<T>(_ make: () throws -> T) throws -> T {
    do { return try make() } catch let error as VisionTaskError {
      if case .invalidOption = error { throw RequestError.badRequest("\(error)") }
      throw error
    }
  }
}

/// What a report says of the picture itself: small enough to keep while a frame waits for its
/// answer, where the pixels are not.
public struct PictureFacts: Sendable {
  public let width: Int
  public let height: Int
  /// What was applied to the stored pixels.
  public let orientation: MPImage.Orientation
  public let exifOrientation: MPImage.Orientation?

  public init(_ decoded: DecodedImage) {
    width = decoded.image.width
    height = decoded.image.height
    orientation = decoded.storedOrientation
    exifOrientation = decoded.exifOrientation
  }
}

/// The JSON object for one image's result, as the command line writes its line.
public func report(
  _ decoded: DecodedImage, source: String, result: some Encodable, timestampMs: Int? = nil, dropped: Bool = false,
  outputs: LandmarkerOutputs = LandmarkerOutputs()
) throws -> JSONValue {
  try report(
    PictureFacts(decoded), source: source, result: result, timestampMs: timestampMs, dropped: dropped,
    outputs: outputs)
}

/// The JSON object for one picture's result, from its facts.
public func report(
  _ facts: PictureFacts, source: String, result: some Encodable, timestampMs: Int? = nil, dropped: Bool = false,
  outputs: LandmarkerOutputs = LandmarkerOutputs()
) throws -> JSONValue {
  let report = ImageReport(
    source: source, width: facts.width, height: facts.height, orientation: facts.orientation,
    exifOrientation: facts.exifOrientation, timestampMs: timestampMs, dropped: dropped, result: result)
  return try report.json(report.encodingOptions(outputs))
}

extension TaskRequest {
  /// The detector's options, as `visage detect` builds them from the same options.
  public func detectorOptions(
    models: ServerModels, handler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)?
  ) -> FaceDetectorOptions {
    let range = choice("range")
    let options = FaceDetectorOptions(
      baseOptions: BaseOptions(
        modelAssetPath: range == "full" ? models.fullRange : models.bundle + ":face_detector.tflite", threadCount: 1,
        maximumSearchRuns: models.maximumSearchRuns),
      runningMode: handler == nil ? .image : .liveStream,
      minDetectionConfidence: number("min-detection-confidence"),
      minSuppressionThreshold: number("min-suppression-threshold"))
    options.searchesAllScales = range == "all"
    options.fullRangeDetectorModelAssetPath = range == "all" ? models.fullRange : nil
    options.searchesAnyRotation = flag("any-rotation")
    options.minFacePresenceConfidence = optionalNumber("min-face-presence-confidence")
    // The landmark model for the presence check: the bundle's (the short-range model is
    // named inside it; the full-range file is not).
    options.landmarksModelAssetPath = range == "full" ? models.bundle : nil
    options.isTrackingEnabled = flag("tracking")
    options.liveStreamHandler = handler
    return options
  }

  /// The landmarker's options, as `visage landmark` builds them.
  public func landmarkerOptions(
    models: ServerModels, handler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)?
  ) -> FaceLandmarkerOptions {
    let range = choice("detector-range")
    let options = FaceLandmarkerOptions(
      baseOptions: BaseOptions(
        modelAssetPath: models.bundle, threadCount: 1, maximumSearchRuns: models.maximumSearchRuns))
    options.runningMode = handler == nil ? .image : .liveStream
    options.numFaces = count("num-faces")
    options.minFaceDetectionConfidence = number("min-face-detection-confidence")
    options.minFacePresenceConfidence = number("min-face-presence-confidence")
    options.minTrackingConfidence = number("min-tracking-confidence")
    options.outputFaceBlendshapes = flag("blendshapes")
    options.outputFacialTransformationMatrixes = flag("transformation-matrices")
    options.outputFaceHeadPoses = flag("head-pose")
    options.outputFaceMetricLandmarks = flag("metric-mesh")
    options.outputFaceIrisDistances = flag("iris-distance")
    options.outputFaceScores = flag("scores")
    options.isTrackingEnabled = flag("tracking")
    options.cameraVerticalFieldOfView = number("camera-fov")
    options.usesImageFocalLength = flag("camera-from-exif")
    // The value was checked against the table's words when the request was read.
    options.landmarkSmoothing = TaskOptions.smoothing(named: choice("smoothing")) ?? options.landmarkSmoothing
    options.faceDetectorModelAssetPath = range == "full" ? models.fullRange : nil
    options.searchesAllScales = range == "all"
    options.fullRangeDetectorModelAssetPath = range == "all" ? models.fullRange : nil
    options.searchesAnyRotation = flag("any-rotation")
    options.liveStreamHandler = handler
    return options
  }

  /// The detector's optional outputs asked for (tracking IDs, on a stream).
  public var detectorOutputs: LandmarkerOutputs {
    LandmarkerOutputs(extras: flag("tracking") ? [.faceTrackingIds] : [])
  }

  /// The landmarker's optional outputs asked for, which its responses write.
  public var landmarkerOutputs: LandmarkerOutputs {
    LandmarkerOutputs(landmarkerOptions(models: ServerModels(bundle: "", fullRange: "", sampleImage: ""), handler: nil))
  }

  /// The analyzer's options, as `visage analyze` builds them.
  public func analyzerOptions(models: ServerModels, video: Bool) -> FaceAnalyzerOptions {
    let accurate = choice("performance") == "accurate"
    let options = FaceAnalyzerOptions(
      baseOptions: BaseOptions(
        modelAssetPath: models.bundle, threadCount: 1, maximumSearchRuns: models.maximumSearchRuns),
      runningMode: video ? .video : .image, performanceMode: accurate ? .accurate : .fast,
      landmarkMode: flag("landmarks") ? .all : .none, contourMode: flag("contours") ? .all : .none,
      classificationMode: flag("classification") ? .all : .none, minFaceSize: number("min-face-size"),
      isTrackingEnabled: flag("tracking"))
    options.maximumFaceCount = count("max-faces")
    options.searchesAnyRotation = flag("any-rotation")
    options.fullRangeDetectorModelAssetPath = accurate ? models.fullRange : nil
    return options
  }
}

/// Decodes a request's image as the command line does (turned upright by its Exif orientation
/// unless `ignoresExif`; `image` is the upright picture, `storedOrientation` what was applied): a format Visage does not decode is a 415 naming it, a file that
/// fails to decode or has too many pixels a 422 in the decoder's words.
public func decodeImage(_ bytes: [UInt8], ignoresExif: Bool, limits: ImageLimits) throws(RequestError) -> DecodedImage {
  guard ImageFormat(sniffing: bytes) != nil else {
    if let other = ImageKinds.otherFormat(of: bytes) {
      throw .unsupportedFormat("the image is \(other), which Visage does not decode: send PNG or JPEG")
    }
    let head = bytes.prefix(8).map {
      String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
    }
    throw .unsupportedFormat(
      "the image is not a PNG or JPEG file (it starts with \(head.joined(separator: " "))): send PNG or JPEG")
  }
  do {
    // Turned upright as the command line turns its inputs: the task runs on the picture a
    // viewer shows, and every position is in it.
    var decoded = try DecodedImage(encoded: bytes, orientation: ignoresExif ? .up : nil, limits: limits)
    decoded.image = decoded.image.applyingOrientation()
    return decoded
  } catch {
    throw .undecodable("\(error)")
  }
}
