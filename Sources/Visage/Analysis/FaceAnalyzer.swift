import Foundation

/// Describes every face in an image the way Google ML Kit's face detector does (frame, head
/// Euler angles, landmarks, contours, smiling and eye-open probabilities, tracking IDs),
/// computed from the Face Landmarker's mesh, blendshapes and pose.
///
/// ```swift
/// let options = FaceAnalyzerOptions(baseOptions: BaseOptions(modelAssetPath: "Weights/face_landmarker.task"))
/// options.landmarkMode = .all
/// options.classificationMode = .all
/// let analyzer = try FaceAnalyzer(options: options)
/// for face in try analyzer.analyze(image: try MPImage(contentsOfFile: "face.jpg")) {
///   print(face.frame, face.headEulerAngleY, face.smilingProbability ?? 0)
/// }
/// ```
///
/// Unlike ML Kit, contours come for every face, in any performance mode, together with
/// tracking IDs. Every method may be called from any thread; calls are serialised.
// Safe: the analysis's state changes only inside `runner`'s calls, under its lock; everything
// else is immutable once made.
public final class FaceAnalyzer: @unchecked Sendable {
  /// A copy of the options the analyzer was created with (changing it changes nothing here).
  public var options: FaceAnalyzerOptions { settings.copy() }
  /// The task's own copy of its options, taken when it was created and never changed.
  private let settings: FaceAnalyzerOptions

  private let analysis: FaceAnalysis
  private let runner: TaskRunner<[AnalyzedFace]>

  /// Creates an analyzer; throws `VisionTaskError` for bad options or unusable models.
  public init(options: FaceAnalyzerOptions) throws {
    // A copy, taken first: the caller may change its options object later, or on another
    // thread, and neither may reach this task.
    let options = options.copy()
    try options.validate()
    settings = options
    let analysis = FaceAnalysis(
      pipeline: try ModelLoader.landmarkerPipeline(for: options.landmarkerOptions), options: options)
    self.analysis = analysis
    runner = TaskRunner(runningMode: options.runningMode) { image, timestamp in
      try analysis.process(image, timestamp: timestamp)
    }
  }

  /// Analyzes a still image. Needs running mode `.image`. With tracking enabled, IDs carry
  /// over from the previous call's faces, as ML Kit's do.
  public func analyze(image: MPImage) throws -> [Face] {
    try runner.image(image, method: "analyze(image:)").map(\.face)
  }

  /// Visage: `analyze(image:)`'s faces, each with the mesh it was computed from and the
  /// scores that admitted it (for answers in other vocabularies, such as Cloud Vision's).
  public func analyzeInDetail(image: MPImage) throws -> [AnalyzedFace] {
    try runner.image(image, method: "analyzeInDetail(image:)")
  }

  /// Analyzes one frame of a video, following faces from the previous frame. Needs running
  /// mode `.video`; timestamps must increase from call to call.
  public func analyze(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> [Face] {
    try runner.videoFrame(
      image, timestamp: timestampInMilliseconds, method: "analyze(videoFrame:timestampInMilliseconds:)"
    ).map(\.face)
  }

  /// Forgets followed faces, tracking IDs in use and the last timestamp, so the next frame may
  /// start an unrelated video; new IDs keep counting up.
  public func resetTracking() {
    runner.reset { analysis.reset() }
  }
}

/// The analyzer's per-call work and its state between calls: the landmarker's pipeline, whose
/// faces (each with its own matrix) become ML Kit's, and the tracker that numbers them.
///
/// Not thread-safe: `FaceAnalyzer` serialises use through its `TaskRunner`.
final class FaceAnalysis {
  private let pipeline: LandmarkerPipeline
  private let options: FaceAnalyzerOptions
  private var tracker = FaceTracker()

  init(pipeline: LandmarkerPipeline, options: FaceAnalyzerOptions) {
    self.pipeline = pipeline
    self.options = options
  }

  /// Forgets followed faces and the IDs in use (numbering continues).
  func reset() {
    pipeline.reset()
    tracker.reset()
  }

  /// ML Kit's faces in a still image (`timestamp` nil) or one frame of a video. The pipeline's
  /// faces are used, not the landmarker's public result, because each carries its own matrix
  /// (the public result drops the matrix of a face the geometry stage skips, shifting the
  /// others).
  func process(_ image: MPImage, timestamp: Int?) throws(VisionTaskError) -> [AnalyzedFace] {
    let found = try pipeline.process(image, timestamp: timestamp)
    let view = UprightView(image)
    var faces: [AnalyzedFace] = []
    for found in found {
      let mesh = found.landmarks.map(view.point)
      // MediaPipe's z is on the scale of x, which is normalized by the stored width.
      let depths = found.landmarks.map { CGFloat(Double($0.z) * view.storedWidth) }
      let frame = Self.bounds(mesh)
      guard Float(frame.width) >= options.minFaceSize * Float(view.width) else { continue }
      // No matrix: landmarks within 1e-3 of their mean, a face a pixel or two wide.
      guard let matrix = found.transformationMatrix else { continue }
      let angles = HeadPose.eulerAngles(matrix, quarterTurns: view.quarterTurns)
      var face = Face(frame: frame, headEulerAngleX: angles.x, headEulerAngleY: angles.y, headEulerAngleZ: angles.z)
      if options.landmarkMode == .all { face.landmarks = FaceMeshFeatures.landmarks(mesh, depths: depths) }
      if options.contourMode == .all { face.contours = FaceMeshFeatures.contours(mesh, depths: depths) }
      if options.classificationMode == .all, let scores = found.blendshapes {
        let p = ExpressionProbabilities.probabilities(scores)
        (face.smilingProbability, face.leftEyeOpenProbability, face.rightEyeOpenProbability) = (
          p.smiling, p.leftEyeOpen, p.rightEyeOpen
        )
      }
      faces.append(
        AnalyzedFace(
          face: face, mesh: mesh, meshDepths: depths,
          detectionFrame: found.detection.map { view.frame($0) }, detectionConfidence: found.detection?.score,
          presenceConfidence: found.presence))
    }
    if options.isTrackingEnabled {
      for (i, id) in tracker.assign(faces.map(\.face.frame)).enumerated() { faces[i].face.trackingID = id }
    }
    return faces
  }

  private static func bounds(_ points: [CGPoint]) -> CGRect {
    let xs = points.map(\.x)
    let ys = points.map(\.y)
    let (x0, x1, y0, y1) = (xs.min() ?? 0, xs.max() ?? 0, ys.min() ?? 0, ys.max() ?? 0)
    return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }
}

/// Visage: one face of `FaceAnalyzer.analyzeInDetail(image:)`: ML Kit's face, and what it was
/// computed from, in pixels of the upright picture as the face's positions are.
public struct AnalyzedFace: Sendable, Equatable {
  /// The face as `analyze(image:)` gives it.
  public var face: Face
  /// The 478 points of the face mesh (468, then the irises: MediaPipe's order).
  public var mesh: [CGPoint]
  /// Each mesh point's depth, as `FaceLandmark.depth`: on the scale of x, smaller nearer the
  /// camera.
  public var meshDepths: [CGFloat]
  /// The face detector's box, from which the mesh's region was made; nil for a face followed
  /// from the previous frame, which no detection found.
  public var detectionFrame: CGRect?
  /// The face detector's score for that box, in 0...1; nil as `detectionFrame` is.
  public var detectionConfidence: Float?
  /// The landmark model's face presence, in 0...1, which admitted the face.
  public var presenceConfidence: Float

  /// Creates a face with its evidence.
  public init(
    face: Face, mesh: [CGPoint], meshDepths: [CGFloat], detectionFrame: CGRect?, detectionConfidence: Float?,
    presenceConfidence: Float
  ) {
    self.face = face
    self.mesh = mesh
    self.meshDepths = meshDepths
    self.detectionFrame = detectionFrame
    self.detectionConfidence = detectionConfidence
    self.presenceConfidence = presenceConfidence
  }
}

/// The upright picture ML Kit reports positions in: the stored pixels turned clockwise by
/// `quarterTurns` quarter turns, as the image's orientation says.
struct UprightView {
  /// 0 for `.up`, 1 for `.right`, 2 for `.down`, 3 for `.left`.
  let quarterTurns: Int
  let storedWidth: Double, storedHeight: Double

  init(_ image: MPImage) {
    quarterTurns =
      switch image.orientation {
      case .right: 1
      case .down: 2
      case .left: 3
      // Mirrored orientations: the detector refuses them, but a video frame whose faces are
      // all tracked skips the detector, and its positions are then those of `.up`.
      default: 0
      }
    (storedWidth, storedHeight) = (Double(image.width), Double(image.height))
  }

  /// The upright picture's width in pixels.
  var width: Int { Int(quarterTurns % 2 == 1 ? storedHeight : storedWidth) }

  /// A detection's box (normalized to the stored image) in pixels of the upright picture.
  func frame(_ detection: RawDetection) -> CGRect {
    let a = point(SIMD3(detection.xmin, detection.ymin, 0))
    let b = point(SIMD3(detection.xmin + detection.width, detection.ymin + detection.height, 0))
    return CGRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
  }

  /// A landmark (normalized to the stored image) in pixels of the upright picture.
  func point(_ landmark: SIMD3<Float>) -> CGPoint {
    let x = Double(landmark.x) * storedWidth
    let y = Double(landmark.y) * storedHeight
    switch quarterTurns {
    case 1: return CGPoint(x: storedHeight - y, y: x)
    case 2: return CGPoint(x: storedWidth - x, y: storedHeight - y)
    case 3: return CGPoint(x: y, y: storedWidth - x)
    default: return CGPoint(x: x, y: y)
    }
  }
}
