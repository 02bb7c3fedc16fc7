import Foundation

/// What an encoder needs to know, beyond a result itself, to write it as the `visage` command
/// line's JSON lines write it (docs/cli.md): the picture's size, which a detection's
/// `rotation` is measured in, and which optional outputs the task was asked for, so that an
/// output asked for is written even when no face has it.
///
/// Set it in the encoder's `userInfo` under `CodingUserInfoKey.visageResultEncoding`. Without
/// it every output is written and a detection has no `rotation`.
///
/// ```swift
/// let encoder = JSONEncoder()
/// encoder.userInfo[.visageResultEncoding] = ResultEncodingOptions(imageWidth: 640, imageHeight: 480)
/// let data = try encoder.encode(result)
/// ```
public struct ResultEncodingOptions: Sendable, Equatable {
  /// The width of the picture the task saw, in pixels; nil when unknown.
  public var imageWidth: Int?
  /// The height of the picture the task saw, in pixels; nil when unknown.
  public var imageHeight: Int?
  /// Whether a landmarker result writes `faceBlendshapes`.
  public var includesFaceBlendshapes: Bool
  /// Whether a landmarker result writes `facialTransformationMatrixes`.
  public var includesFacialTransformationMatrixes: Bool
  /// Visage's own landmarker outputs a result writes even when it has none (each is written
  /// anyway when present), so that an output asked for appears for an image without faces.
  public var includedExtraOutputs: Set<LandmarkerExtraOutput>

  /// Creates encoding options; by default every output MediaPipe has is written.
  public init(
    imageWidth: Int? = nil, imageHeight: Int? = nil, includesFaceBlendshapes: Bool = true,
    includesFacialTransformationMatrixes: Bool = true, includedExtraOutputs: Set<LandmarkerExtraOutput> = []
  ) {
    self.imageWidth = imageWidth
    self.imageHeight = imageHeight
    self.includesFaceBlendshapes = includesFaceBlendshapes
    self.includesFacialTransformationMatrixes = includesFacialTransformationMatrixes
    self.includedExtraOutputs = includedExtraOutputs
  }

  /// The options an encoder carries, or the defaults.
  static func of(_ encoder: any Encoder) -> ResultEncodingOptions {
    encoder.userInfo[.visageResultEncoding] as? ResultEncodingOptions ?? ResultEncodingOptions()
  }
}

extension CodingUserInfoKey {
  /// Where an encoder's `userInfo` holds its `ResultEncodingOptions`.
  public static let visageResultEncoding = CodingUserInfoKey(rawValue: "visage.resultEncoding")!
}

/// Visage's landmarker outputs beyond MediaPipe's, each a per-face array of
/// `FaceLandmarkerResult` written under its raw value.
public enum LandmarkerExtraOutput: String, Sendable, CaseIterable {
  /// `FaceLandmarkerResult.faceHeadPoses`.
  case faceHeadPoses
  /// `FaceLandmarkerResult.faceMetricLandmarks`.
  case faceMetricLandmarks
  /// `FaceLandmarkerResult.faceIrisDistances`.
  case faceIrisDistances
  /// `FaceLandmarkerResult.faceTrackingIds` (and `FaceDetectorResult.faceTrackingIds`).
  case faceTrackingIds
  /// `FaceLandmarkerResult.faceScores`.
  case faceScores
}
