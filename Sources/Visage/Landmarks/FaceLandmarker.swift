import Foundation
import VisageTFLite

/// Finds faces and their 478 landmarks in images, video frames or a live stream, with
/// optional blendshapes: MediaPipe's Face Landmarker.
///
/// ```swift
/// var options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: "Weights/face_landmarker.task"))
/// options.outputFaceBlendshapes = true
/// let landmarker = try FaceLandmarker(options: options)
/// let result = try landmarker.detect(image: try VisionImage(contentsOfFile: "face.jpg"))
/// ```
///
/// In video and live-stream mode a face found in one frame is followed into the next from
/// its landmarks; the detector runs only while fewer than `numFaces` faces are followed.
/// Every method may be called from any thread; calls are serialised internally.
public final class FaceLandmarker: @unchecked Sendable {
  /// The options the landmarker was created with.
  public let options: FaceLandmarkerOptions

  // `lock` guards `pipeline` (models and tracking state) and `timestamps`.
  private let lock = NSLock()
  /// Internal, not private, so tests can set its tracking state (`LandmarkerStepParityTests`).
  let pipeline: LandmarkerPipeline
  private var timestamps = TimestampGate()
  private var liveStream: LiveStreamRunner<VisionImage>?

  /// Creates an image-mode landmarker with default options for the bundle at `modelPath`.
  public convenience init(modelPath: String) throws {
    try self.init(options: FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: modelPath)))
  }

  /// Creates a landmarker; throws `VisionTaskError` for bad options or an unusable bundle.
  public init(options: FaceLandmarkerOptions) throws {
    try options.validate()
    self.options = options
    let path = options.baseOptions.modelAssetPath
    let bundle: TaskBundle
    do { bundle = try TaskBundle(bytes: ModelSource.bytes(ofFile: path)) } catch {
      throw VisionTaskError.invalidModel(path.isEmpty ? "no model path given (baseOptions.modelAssetPath)" : "\(error)")
    }
    func model(_ name: String) throws(VisionTaskError) -> TFLiteModel {
      do { return try TFLiteModel(bytes: bundle.data(named: name)) } catch { throw .invalidModel("\(path): \(error)") }
    }
    // One set of threads for all three models, which run one after another.
    let pool = try options.baseOptions.threadPool()
    let detector = try DetectorGraph(
      model: options.faceDetectorModelAssetPath.map(FaceDetector.loadModel) ?? model("face_detector.tflite"), pool: pool)
    let landmarks = try LandmarkGraph(model: model("face_landmarks_detector.tflite"), pool: pool)
    var blendshapes: BlendshapeGraph?
    if options.outputFaceBlendshapes {
      guard bundle.entryNames.contains("face_blendshapes.tflite") else {
        throw VisionTaskError.invalidModel("\(path) has no face_blendshapes.tflite, which outputFaceBlendshapes needs")
      }
      blendshapes = try BlendshapeGraph(model: model("face_blendshapes.tflite"), pool: pool)
    }
    var geometry: FaceGeometry?
    if options.outputFacialTransformationMatrixes {
      let name = "geometry_pipeline_metadata_landmarks.binarypb"
      do { geometry = try FaceGeometry(metadata: bundle.data(named: name)) } catch {
        throw VisionTaskError.invalidModel("\(path): \(name): \(error)")
      }
    }
    pipeline = LandmarkerPipeline(
      detector: detector, landmarks: landmarks, blendshapes: blendshapes, geometry: geometry, options: options)
    if options.runningMode == .liveStream {
      liveStream = LiveStreamRunner(label: "visage.face-landmarker.live-stream") { [weak self] image, timestamp in
        self?.deliver(image, timestamp: timestamp)
      }
    }
  }

  /// Finds faces in a still image. Needs running mode `.image`.
  public func detect(image: VisionImage) throws -> FaceLandmarkerResult {
    try options.runningMode.require(.image, for: "detect(image:)")
    return try Self.result(faces(image, timestamp: nil), timestamp: nil)
  }

  /// Finds faces in one frame of a video, following faces from the previous frame. Needs
  /// running mode `.video`; timestamps must increase from call to call.
  public func detect(videoFrame image: VisionImage, timestampInMilliseconds: Int) throws -> FaceLandmarkerResult {
    try options.runningMode.require(.video, for: "detect(videoFrame:timestampInMilliseconds:)")
    return try Self.result(faces(image, timestamp: timestampInMilliseconds), timestamp: timestampInMilliseconds)
  }

  /// Hands a live-stream frame over and returns at once; the result goes to the options'
  /// delegate or handler. Needs running mode `.liveStream`; timestamps must increase.
  /// Frames are dropped as in `FaceDetector.detectAsync`.
  public func detectAsync(image: VisionImage, timestampInMilliseconds: Int) throws {
    try options.runningMode.require(.liveStream, for: "detectAsync(image:timestampInMilliseconds:)")
    try lock.withLock {
      try timestamps.admit(timestampInMilliseconds)
      liveStream?.submit(image, timestamp: timestampInMilliseconds)
    }
  }

  /// Visage: forgets tracked faces, smoothing filters and the last timestamp, so the next
  /// frame may start an unrelated video (timestamps from 0 again) without reloading models.
  /// In live-stream mode, call it once `waitUntilIdle()` has returned.
  public func resetTracking() {
    lock.withLock {
      pipeline.reset()
      timestamps = TimestampGate()
    }
  }

  /// Blocks until every live-stream frame handed over so far is processed or dropped, and
  /// its callback has returned.
  public func waitUntilIdle() {
    liveStream?.waitUntilIdle()
  }

  /// The pipeline's faces for a still image (`timestamp` nil) or a video frame, whose
  /// timestamp must pass the gate; the caller has checked the running mode. Internal for
  /// `FaceAnalyzer`, which needs each face's own matrix (the public result drops skipped ones).
  func faces(_ image: VisionImage, timestamp: Int?) throws -> [LandmarkerPipeline.Face] {
    try lock.withLock {
      if let timestamp { try timestamps.admit(timestamp) }
      return try pipeline.process(image, timestamp: timestamp)
    }
  }

  /// The public result for the pipeline's faces.
  private static func result(_ faces: [LandmarkerPipeline.Face], timestamp: Int?) -> FaceLandmarkerResult {
    FaceLandmarkerResult(
      faceLandmarks: faces.map { $0.landmarks.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) } },
      faceBlendshapes: faces.compactMap(\.blendshapes).map { scores in
        Classifications(
          headIndex: 0, headName: nil,
          categories: scores.enumerated().map { i, score in
            ResultCategory(index: i, score: score, categoryName: BlendshapeGraph.categoryNames[i], displayName: nil)
          })
      },
      // Like MediaPipe, a face the geometry stage skips (landmarks too compact) has no
      // matrix, so this list can be shorter than `faceLandmarks`.
      facialTransformationMatrixes: faces.compactMap(\.transformationMatrix),
      timestampInMilliseconds: timestamp ?? 0)
  }

  private func deliver(_ image: VisionImage, timestamp: Int) {
    let outcome = Result { try lock.withLock { try Self.result(pipeline.process(image, timestamp: timestamp), timestamp: timestamp) } }
    let (value, error) = (try? outcome.get(), outcome.failure)
    options.faceLandmarkerLiveStreamDelegate?.faceLandmarker(
      self, didFinishDetection: value, timestampInMilliseconds: timestamp, error: error)
    options.liveStreamHandler?(value, timestamp, error)
  }
}
