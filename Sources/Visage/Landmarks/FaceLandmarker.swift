import Foundation

/// Finds faces and their 478 landmarks in images, video frames or a live stream, with
/// optional blendshapes: MediaPipe's Face Landmarker.
///
/// ```swift
/// let options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: "Weights/face_landmarker.task"))
/// options.outputFaceBlendshapes = true
/// let landmarker = try FaceLandmarker(options: options)
/// let result = try landmarker.detect(image: try MPImage(contentsOfFile: "face.jpg"))
/// ```
///
/// In video and live-stream mode a face found in one frame is followed into the next from
/// its landmarks; the detector runs only while fewer than `numFaces` faces are followed.
/// Every method may be called from any thread; calls are serialised internally.
// Safe: the pipeline's and extras' state changes only inside `runner`'s calls, under its
// lock; everything else is immutable once made.
public final class FaceLandmarker: @unchecked Sendable {
  /// A copy of the options the landmarker was created with (changing it changes nothing here).
  public var options: FaceLandmarkerOptions { settings.copy() }
  /// The task's own copy of its options, taken when it was created and never changed.
  private let settings: FaceLandmarkerOptions

  /// The stages and their tracking state; only `runner`'s calls touch it, under its lock.
  private let pipeline: LandmarkerPipeline
  /// Visage's outputs beyond MediaPipe's, and their state between frames.
  private let extras: LandmarkerExtras
  private let runner: TaskRunner<[Output]>

  /// The pipeline's faces with their extra outputs (none computed unless asked for).
  private static func outputs(
    _ faces: [LandmarkerPipeline.Face], _ extras: LandmarkerExtras, image: MPImage, streaming: Bool
  ) -> [Output] {
    let extra = extras.outputs(faces, image: image, streaming: streaming)
    return faces.indices.map { Output(face: faces[$0], extras: extra.isEmpty ? .init() : extra[$0]) }
  }

  /// One face as the pipeline gave it, with the extra outputs asked for.
  private struct Output {
    var face: LandmarkerPipeline.Face
    var extras: LandmarkerExtras.Output
  }

  /// Creates an image-mode landmarker with default options for the bundle at `modelPath`.
  public convenience init(modelPath: String) throws {
    try self.init(options: FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: modelPath)))
  }

  /// Creates a landmarker; throws `VisionTaskError` for bad options or an unusable bundle.
  public init(options: FaceLandmarkerOptions) throws {
    // A copy, taken first: the caller may change its options object later, or on another
    // thread, and neither may reach this task.
    let options = options.copy()
    try options.validate()
    settings = options
    let pipeline = try ModelLoader.landmarkerPipeline(for: options)
    self.pipeline = pipeline
    let extras = LandmarkerExtras(options: options)
    self.extras = extras
    runner = TaskRunner(runningMode: options.runningMode) { image, timestamp in
      let faces = try pipeline.process(image, timestamp: timestamp)
      return Self.outputs(faces, extras, image: image, streaming: timestamp != nil)
    }
    if options.runningMode == .liveStream {
      runner.startLiveStream(label: "visage.face-landmarker.live-stream", owner: self) {
        landmarker, outcome, timestamp in
        landmarker.deliver(outcome, timestamp: timestamp)
      }
    }
  }

  /// Finds faces in a still image. Needs running mode `.image`.
  public func detect(image: MPImage) throws -> FaceLandmarkerResult {
    try result(runner.image(image, method: "detect(image:)"), timestamp: nil)
  }

  /// Visage: the landmarks of faces whose regions the caller gives, with no detection, as
  /// MediaPipe's own tests run its landmark graph (its Tasks API cannot). Each region is read
  /// as a detection's would be: its box scaled by 1.5 about its centre and turned by its
  /// rotation. A region whose face presence is not above `minFacePresenceConfidence` gives no
  /// face; `numFaces` does not apply. Needs running mode `.image`.
  public func detect(image: MPImage, faceRegions: [FaceRegion]) throws -> FaceLandmarkerResult {
    let rects = faceRegions.map { $0.normalizedRect(imageWidth: image.width, imageHeight: image.height) }
    for (region, rect) in zip(faceRegions, rects)
    where
      !([rect.xCenter, rect.yCenter, rect.width, rect.height, rect.rotation].allSatisfy(\.isFinite)
      && rect.width > 0 && rect.height > 0)
    {
      throw VisionTaskError.invalidOption("invalid face region \(region): needs a finite box of positive size")
    }
    let outputs = try runner.image(image, method: "detect(image:faceRegions:)") { [pipeline, extras] image in
      let faces = try pipeline.process(image, timestamp: nil, given: rects)
      return Self.outputs(faces, extras, image: image, streaming: false)
    }
    return result(outputs, timestamp: nil)
  }

  /// Finds faces in one frame of a video, following faces from the previous frame. Needs
  /// running mode `.video`; timestamps must increase from call to call.
  public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> FaceLandmarkerResult {
    let faces = try runner.videoFrame(
      image, timestamp: timestampInMilliseconds, method: "detect(videoFrame:timestampInMilliseconds:)")
    return result(faces, timestamp: timestampInMilliseconds)
  }

  /// Hands a live-stream frame over and returns at once; the result goes to the options'
  /// delegate or handler. Needs running mode `.liveStream`; timestamps must increase.
  /// Frames are dropped as in `FaceDetector.detectAsync`.
  public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
    try runner.submit(image, timestamp: timestampInMilliseconds, method: "detectAsync(image:timestampInMilliseconds:)")
  }

  /// Visage: forgets tracked faces, smoothing filters and the last timestamp, so the next
  /// frame may start an unrelated video (timestamps from 0 again) without reloading models.
  /// In live-stream mode, call it once `waitUntilIdle()` has returned.
  public func resetTracking() {
    runner.reset {
      pipeline.reset()
      extras.reset()
    }
  }

  /// Blocks until every live-stream frame handed over so far is processed or dropped, and
  /// its callback has returned.
  public func waitUntilIdle() {
    runner.waitUntilIdle()
  }

  /// The public result for the pipeline's faces.
  private func result(_ outputs: [Output], timestamp: Int?) -> FaceLandmarkerResult {
    let faces = outputs.map(\.face)
    return FaceLandmarkerResult(
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
      // The geometry may run for head poses alone.
      facialTransformationMatrixes: settings.outputFacialTransformationMatrixes
        ? faces.compactMap(\.transformationMatrix) : [],
      faceHeadPoses: settings.outputFaceHeadPoses ? outputs.map(\.extras.headPose) : [],
      faceMetricLandmarks: settings.outputFaceMetricLandmarks
        ? faces.map { $0.metricMesh?.map { Landmark(x: $0.x, y: $0.y, z: $0.z) } } : [],
      faceIrisDistances: settings.outputFaceIrisDistances ? outputs.map(\.extras.irisDistances) : [],
      faceTrackingIds: settings.isTrackingEnabled ? outputs.compactMap(\.extras.trackingID) : [],
      faceScores: settings.outputFaceScores ? outputs.compactMap(\.extras.scores) : [],
      timestampInMilliseconds: timestamp ?? 0)
  }

  private func deliver(_ outcome: Result<[Output], Error>, timestamp: Int) {
    let value = try? result(outcome.get(), timestamp: timestamp)
    let error = outcome.failure
    settings.faceLandmarkerLiveStreamDelegate?.faceLandmarker(
      self, didFinishDetection: value, timestampInMilliseconds: timestamp, error: error)
    settings.liveStreamHandler?(value, timestamp, error)
  }
}

/// Visage: a face's region for `FaceLandmarker.detect(image:faceRegions:)`: a box as a
/// detection's `boundingBox` gives it, in pixels of the stored image, and the face's in-plane
/// rotation in degrees as `Detection.inPlaneRotation` gives it (clockwise on screen; 0 for an
/// upright face, 90 for one whose top points right).
public struct FaceRegion: Sendable, Equatable {
  /// The face's box, in pixels.
  public var boundingBox: CGRect
  /// The face's rotation, in degrees clockwise.
  public var rotationDegrees: Double

  /// Creates a region.
  public init(boundingBox: CGRect, rotationDegrees: Double = 0) {
    self.boundingBox = boundingBox
    self.rotationDegrees = rotationDegrees
  }

  /// The region the landmark model reads, as `FaceRects.region(for:)` makes it from a
  /// detection.
  func normalizedRect(imageWidth: Int, imageHeight: Int) -> NormalizedRect {
    let (w, h) = (Double(imageWidth), Double(imageHeight))
    return NormalizedRect(
      xCenter: Float(boundingBox.midX / w), yCenter: Float(boundingBox.midY / h),
      width: Float(boundingBox.width / w) * 1.5, height: Float(boundingBox.height / h) * 1.5,
      rotation: FaceRects.normalizeRadians(Float(rotationDegrees * .pi / 180)))
  }
}
