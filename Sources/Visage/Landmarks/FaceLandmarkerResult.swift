/// A point on a face, normalized to the image: MediaPipe's `NormalizedLandmark`.
///
/// x and y are fractions of the stored image's width and height (they may fall slightly
/// outside 0...1 at the border); z is depth relative to the head's centre, in units of the
/// image width, smaller toward the camera.
public struct NormalizedLandmark: Sendable, Equatable, Hashable {
  /// Horizontal position, as a fraction of the image width.
  public var x: Float
  /// Vertical position, as a fraction of the image height.
  public var y: Float
  /// Depth, in image widths; smaller is closer to the camera.
  public var z: Float
  /// Not computed by the face mesh model; always nil, as in MediaPipe.
  public var visibility: Float?
  /// Not computed by the face mesh model; always nil, as in MediaPipe.
  public var presence: Float?

  /// Creates a landmark.
  public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
    self.x = x
    self.y = y
    self.z = z
    self.visibility = visibility
    self.presence = presence
  }
}

/// A list of scored categories from one classifier head: MediaPipe's `Classifications`.
public struct Classifications: Sendable, Equatable {
  /// The head's index (0: the blendshape model has one head).
  public var headIndex: Int
  /// The head's name, when the model names it.
  public var headName: String?
  /// The categories, in the model's output order.
  public var categories: [ResultCategory]

  /// Creates a classification list.
  public init(headIndex: Int, headName: String?, categories: [ResultCategory]) {
    self.headIndex = headIndex
    self.headName = headName
    self.categories = categories
  }
}

/// What `FaceLandmarker` finds in one image or frame: MediaPipe's `FaceLandmarkerResult`.
///
/// The arrays list faces in the same order: tracked faces first, then new detections.
public struct FaceLandmarkerResult: Sendable, Equatable {
  /// 478 landmarks per face: the face mesh (468) and the irises (10).
  public var faceLandmarks: [[NormalizedLandmark]]
  /// 52 blendshape scores per face, when `outputFaceBlendshapes` is set; else empty.
  public var faceBlendshapes: [Classifications]
  /// Each face's pose as a 4×4 matrix from the canonical face model (centimetres) to the
  /// camera, when `outputFacialTransformationMatrixes` is set; else empty.
  public var facialTransformationMatrixes: [Matrix4x4]
  /// Visage: each face's head pose, when `outputFaceHeadPoses` is set; else empty. Parallel to
  /// `faceLandmarks`: nil for a face the geometry stage skips (landmarks too compact for a
  /// pose), which has no matrix either.
  public var faceHeadPoses: [HeadEulerAngles?]
  /// Visage: each face's metric mesh (MediaPipe's `FaceGeometry.mesh`), when
  /// `outputFaceMetricLandmarks` is set; else empty. Parallel to `faceLandmarks`, nil as a
  /// head pose is. 468 points in centimetres, in the canonical face's frame (x to the face's
  /// left, y up, z toward the viewer): the face's own shape and expression, at the canonical
  /// face's position. The face's transformation matrix takes them into camera space.
  public var faceMetricLandmarks: [[Landmark]?]
  /// Visage: each face's eye distances, when `outputFaceIrisDistances` is set; else empty.
  /// Parallel to `faceLandmarks`.
  public var faceIrisDistances: [IrisDistances?]
  /// Visage: each face's tracking ID, when `isTrackingEnabled` is set; else empty. Parallel
  /// to `faceLandmarks`.
  public var faceTrackingIds: [Int]
  /// Visage: each face's detection score and presence, when `outputFaceScores` is set; else
  /// empty. Parallel to `faceLandmarks`.
  public var faceScores: [FaceScores]
  /// The frame's timestamp; 0 in image mode.
  public var timestampInMilliseconds: Int

  /// Creates a result.
  public init(
    faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications],
    facialTransformationMatrixes: [Matrix4x4], faceHeadPoses: [HeadEulerAngles?] = [],
    faceMetricLandmarks: [[Landmark]?] = [], faceIrisDistances: [IrisDistances?] = [], faceTrackingIds: [Int] = [],
    faceScores: [FaceScores] = [], timestampInMilliseconds: Int
  ) {
    self.faceLandmarks = faceLandmarks
    self.faceBlendshapes = faceBlendshapes
    self.facialTransformationMatrixes = facialTransformationMatrixes
    self.faceHeadPoses = faceHeadPoses
    self.faceMetricLandmarks = faceMetricLandmarks
    self.faceIrisDistances = faceIrisDistances
    self.faceTrackingIds = faceTrackingIds
    self.faceScores = faceScores
    self.timestampInMilliseconds = timestampInMilliseconds
  }
}
