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
  /// The request's settings, for the server's models: VisageHosting makes the library's
  /// options from them, as it does for the command line and Python. What it refuses is a 400.
  private func options<Options>(
    _ models: ServerModels, mode: RunningMode, _ make: (TaskSettings, TaskModels) throws(OptionError) -> Options
  ) throws(RequestError) -> Options {
    var settings = self.settings
    (settings.runningMode, settings.maximumSearchRuns) = (mode, models.maximumSearchRuns)
    do { return try make(settings, TaskModels(bundle: models.bundle, fullRange: models.fullRange)) } catch {
      throw .badRequest(error.message(in: .query))
    }
  }

  /// The detector's options, in live-stream mode when there is a handler.
  public func detectorOptions(
    models: ServerModels, handler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)?
  ) throws(RequestError) -> FaceDetectorOptions {
    try options(models, mode: handler == nil ? .image : .liveStream) { settings, models throws(OptionError) in
      try settings.detectorOptions(models: models, handler: handler)
    }
  }

  /// The landmarker's options, in live-stream mode when there is a handler.
  public func landmarkerOptions(
    models: ServerModels, handler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)?
  ) throws(RequestError) -> FaceLandmarkerOptions {
    try options(models, mode: handler == nil ? .image : .liveStream) { settings, models throws(OptionError) in
      try settings.landmarkerOptions(models: models, handler: handler)
    }
  }

  /// The analyzer's options, in video mode for a stream.
  public func analyzerOptions(models: ServerModels, video: Bool) throws(RequestError) -> FaceAnalyzerOptions {
    try options(models, mode: video ? .video : .image) { settings, models throws(OptionError) in
      try settings.analyzerOptions(models: models)
    }
  }

  /// The detector's optional outputs asked for (tracking IDs, on a stream).
  public var detectorOutputs: LandmarkerOutputs {
    LandmarkerOutputs(extras: settings.flag("tracking") ? [.faceTrackingIds] : [])
  }

  /// The landmarker's optional outputs asked for, which its responses write.
  public var landmarkerOutputs: LandmarkerOutputs {
    LandmarkerOutputs(
      (try? settings.landmarkerOptions(models: TaskModels(bundle: "", fullRange: ""))) ?? FaceLandmarkerOptions())
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
