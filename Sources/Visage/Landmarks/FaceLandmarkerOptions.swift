import Foundation

/// Receives live-stream results of a `FaceLandmarker`: MediaPipe's
/// `FaceLandmarkerLiveStreamDelegate`.
///
/// Not `Sendable`, so that a plain `class X: NSObject, FaceLandmarkerLiveStreamDelegate`, as
/// the guides write it, conforms in Swift 6. The landmarker calls it from its own serial
/// queue, as MediaPipe does: state the delegate shares with other threads needs its own
/// protection.
public protocol FaceLandmarkerLiveStreamDelegate: AnyObject {
  /// Called on the landmarker's private serial queue, in timestamp order, once for every
  /// frame that was processed (dropped frames get no call). Exactly one of `result` and
  /// `error` is non-nil.
  func faceLandmarker(
    _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
    timestampInMilliseconds: Int, error: (any Error)?)
}

/// How a landmarker smooths landmarks over video frames.
public enum LandmarkSmoothing: Sendable {
  /// MediaPipe's behaviour: one face is smoothed when `numFaces` is 1; with more faces
  /// allowed, nothing is smoothed.
  case mediaPipe
  /// Every face gets its own filter, matched from frame to frame by overlap; identical to
  /// `.mediaPipe` when `numFaces` is 1.
  case everyFace
  /// No smoothing: every frame's landmarks as the model gives them.
  case off
}

/// How to build a `FaceLandmarker`: MediaPipe's `FaceLandmarkerOptions`, plus Visage
/// extensions (the detector's model and search, `landmarkSmoothing`).
///
/// A class, as MediaPipe's is: `let options = FaceLandmarkerOptions()` and then setting its
/// properties works. `FaceLandmarker(options:)` takes a copy, so changing the options later
/// does not reach a landmarker already made.
public final class FaceLandmarkerOptions {
  /// The `face_landmarker.task` bundle.
  public var baseOptions: BaseOptions
  /// How images arrive; decides which `detect` method may be called.
  public var runningMode: RunningMode
  /// The most faces to find, at least 1. Default 1.
  public var numFaces: Int
  /// The lowest detector score that starts a face, in 0...1. Default 0.5.
  public var minFaceDetectionConfidence: Float
  /// The lowest face-presence score for a face to be kept, in 0...1. Default 0.5.
  public var minFacePresenceConfidence: Float
  /// In video and live stream: the IoU above which a fresh detection replaces a tracked
  /// face, in 0...1. Default 0.5.
  public var minTrackingConfidence: Float
  /// Also compute the 52 blendshape scores per face.
  public var outputFaceBlendshapes: Bool
  /// Also compute each face's 4×4 transformation matrix.
  public var outputFacialTransformationMatrixes: Bool
  /// Visage: also give each face's head pose (`FaceLandmarkerResult.faceHeadPoses`), ML Kit's
  /// Euler angles from the transformation matrix, as `FaceAnalyzer` gives them. Default false.
  public var outputFaceHeadPoses: Bool
  /// Visage: also give each face's metric mesh (`FaceLandmarkerResult.faceMetricLandmarks`),
  /// MediaPipe's `FaceGeometry.mesh`. Default false.
  public var outputFaceMetricLandmarks: Bool
  /// Visage: also give each eye's distance from the camera
  /// (`FaceLandmarkerResult.faceIrisDistances`), from its iris's size. Default false.
  public var outputFaceIrisDistances: Bool
  /// Visage: also give the scores that admitted each face (`FaceLandmarkerResult.faceScores`).
  /// Default false.
  public var outputFaceScores: Bool
  /// Visage: number faces (`FaceLandmarkerResult.faceTrackingIds`); a face keeps its number
  /// while it stays in view from call to call. Default false.
  public var isTrackingEnabled: Bool
  /// Visage: the virtual camera's vertical field of view in degrees, which the matrices,
  /// head poses, metric meshes and iris distances assume, in (0, 180). Default 63, MediaPipe's
  /// fixed value.
  public var cameraVerticalFieldOfView: Float
  /// Visage: use an image's own focal length (`MPImage.focalLengthInPixels`, which Visage's
  /// decoders read from Exif) in place of `cameraVerticalFieldOfView` when it has one.
  /// Default false.
  public var usesImageFocalLength: Bool
  /// Receives live-stream results (held weakly, as on iOS). Either this or
  /// `liveStreamHandler` must be set in `.liveStream` mode, and neither in the others.
  public weak var faceLandmarkerLiveStreamDelegate: (any FaceLandmarkerLiveStreamDelegate)?
  /// A closure alternative to the delegate: result or error, and the frame's timestamp.
  public var liveStreamHandler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)?
  /// Visage: a detector to use instead of the bundle's, such as the full-range
  /// `face_detection_full_range.tflite` so that faces far from the camera get landmarks.
  public var faceDetectorModelAssetPath: String?
  /// Visage: how landmarks are smoothed in video and live stream. Default `.everyFace`.
  public var landmarkSmoothing: LandmarkSmoothing
  /// Visage: the smoothing filter's settings. Default `.mediaPipe`.
  public var landmarkFilter = LandmarkFilterParameters.mediaPipe
  /// Visage: find new faces at every scale, as `FaceDetectorOptions.searchesAllScales` does
  /// (the short-range detector on the whole image, the full-range one on the whole image
  /// and on tiles, every candidate confirmed by three looks of the short-range detector; a
  /// face's detection score, which `minFaceDetectionConfidence` applies to, is then the
  /// product of the looks' scores, for which 0.4 suits better than 0.5). Default false.
  public var searchesAllScales: Bool
  /// Visage: the full-range detector for `searchesAllScales`; nil means
  /// `face_detection_full_range.tflite` in the folder of the bundle.
  public var fullRangeDetectorModelAssetPath: String?
  /// Visage: also look for new faces in the image turned by 90°, 180° and 270°; each face's
  /// landmark region is then turned by its eye line as usual, so sideways and upside-down
  /// faces get their landmarks. Four times the detector's work. Default false.
  public var searchesAnyRotation: Bool

  /// Creates options with MediaPipe's defaults.
  public init(
    baseOptions: BaseOptions = BaseOptions(), runningMode: RunningMode = .image, numFaces: Int = 1,
    minFaceDetectionConfidence: Float = 0.5, minFacePresenceConfidence: Float = 0.5,
    minTrackingConfidence: Float = 0.5, outputFaceBlendshapes: Bool = false,
    outputFacialTransformationMatrixes: Bool = false
  ) {
    self.baseOptions = baseOptions
    self.runningMode = runningMode
    self.numFaces = numFaces
    self.minFaceDetectionConfidence = minFaceDetectionConfidence
    self.minFacePresenceConfidence = minFacePresenceConfidence
    self.minTrackingConfidence = minTrackingConfidence
    self.outputFaceBlendshapes = outputFaceBlendshapes
    self.outputFacialTransformationMatrixes = outputFacialTransformationMatrixes
    self.outputFaceHeadPoses = false
    self.outputFaceMetricLandmarks = false
    self.outputFaceIrisDistances = false
    self.outputFaceScores = false
    self.isTrackingEnabled = false
    self.cameraVerticalFieldOfView = 63
    self.usesImageFocalLength = false
    self.landmarkSmoothing = .everyFace
    self.searchesAllScales = false
    self.searchesAnyRotation = false
  }

  /// An independent copy (its `baseOptions` copied too); the delegate is the same object,
  /// still held weakly.
  public func copy() -> FaceLandmarkerOptions {
    let copy = FaceLandmarkerOptions(
      baseOptions: baseOptions.copy(), runningMode: runningMode, numFaces: numFaces,
      minFaceDetectionConfidence: minFaceDetectionConfidence, minFacePresenceConfidence: minFacePresenceConfidence,
      minTrackingConfidence: minTrackingConfidence, outputFaceBlendshapes: outputFaceBlendshapes,
      outputFacialTransformationMatrixes: outputFacialTransformationMatrixes)
    copy.faceLandmarkerLiveStreamDelegate = faceLandmarkerLiveStreamDelegate
    copy.liveStreamHandler = liveStreamHandler
    copy.faceDetectorModelAssetPath = faceDetectorModelAssetPath
    copy.outputFaceHeadPoses = outputFaceHeadPoses
    copy.outputFaceMetricLandmarks = outputFaceMetricLandmarks
    copy.outputFaceIrisDistances = outputFaceIrisDistances
    copy.outputFaceScores = outputFaceScores
    copy.isTrackingEnabled = isTrackingEnabled
    copy.cameraVerticalFieldOfView = cameraVerticalFieldOfView
    copy.usesImageFocalLength = usesImageFocalLength
    copy.landmarkSmoothing = landmarkSmoothing
    copy.landmarkFilter = landmarkFilter
    copy.searchesAllScales = searchesAllScales
    copy.fullRangeDetectorModelAssetPath = fullRangeDetectorModelAssetPath
    copy.searchesAnyRotation = searchesAnyRotation
    return copy
  }

  /// Throws the `VisionTaskError` that `FaceLandmarker(options:)` would throw for these
  /// options before reading any model: for `numFaces` below 1, confidences outside 0...1 (or
  /// NaN), a delegate or handler that does not fit the running mode, or a thread count outside
  /// 1...64.
  public func validate() throws(VisionTaskError) {
    guard numFaces >= 1 else { throw .invalidOption("invalid `numFaces` option: must be at least 1, got \(numFaces)") }
    try validateUnitInterval([
      ("minFaceDetectionConfidence", minFaceDetectionConfidence),
      ("minFacePresenceConfidence", minFacePresenceConfidence), ("minTrackingConfidence", minTrackingConfidence),
    ])
    guard landmarkFilter.isValid else {
      throw .invalidOption(
        "invalid `landmarkFilter` option: frequency, minCutoff and derivativeCutoff must be positive and beta not negative, got "
          + "frequency \(landmarkFilter.frequency), minCutoff \(landmarkFilter.minCutoff), beta \(landmarkFilter.beta), "
          + "derivativeCutoff \(landmarkFilter.derivativeCutoff)"
      )
    }
    guard cameraVerticalFieldOfView > 0, cameraVerticalFieldOfView < 180 else {
      throw .invalidOption(
        "invalid `cameraVerticalFieldOfView` option: must be in (0, 180) degrees, got \(cameraVerticalFieldOfView)")
    }
    try runningMode.validate(hasLiveStreamReceiver: faceLandmarkerLiveStreamDelegate != nil || liveStreamHandler != nil)
    try baseOptions.validate()
  }
}

extension FaceLandmarkerOptions {
  /// Whether the geometry stage runs: for the matrices or anything computed from them.
  var needsGeometry: Bool {
    outputFacialTransformationMatrixes || outputFaceHeadPoses || outputFaceMetricLandmarks
  }

  /// The vertical field of view for `image`, in degrees: from its focal length when allowed
  /// and known (2·atan(h / 2f), h the stored height the landmarks are normalized to), else
  /// `cameraVerticalFieldOfView`.
  func verticalFieldOfView(for image: MPImage) -> Float {
    if usesImageFocalLength, let f = image.focalLengthInPixels, f > 0, f.isFinite {
      return Float(2 * atan(Double(image.height) / (2 * f)) * 180 / .pi)
    }
    return cameraVerticalFieldOfView
  }
}
