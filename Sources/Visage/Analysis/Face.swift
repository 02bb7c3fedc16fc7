import Foundation

/// One face as `FaceAnalyzer` describes it: Google ML Kit's `Face`, computed from the face
/// mesh, its blendshapes and its pose.
///
/// Positions are in pixels of the upright image: the stored pixels turned by the image's
/// `orientation`, as ML Kit reports them. "Left" and "right" are the subject's, so the left
/// eye is on the image's right in an unmirrored photo.
public struct Face: Sendable, Equatable {
  /// The axis-aligned box around the face mesh (forehead to chin, cheek to cheek), in pixels.
  public var frame: CGRect
  /// Pitch in degrees; positive when the face looks up.
  public var headEulerAngleX: Float
  /// Yaw in degrees; positive when the face is turned toward the camera's right (its nose
  /// points to the right side of the image).
  public var headEulerAngleY: Float
  /// Roll in degrees; positive when the face is rotated counter-clockwise in the image.
  public var headEulerAngleZ: Float
  /// The ten landmarks, in `FaceLandmarkType` order, when `landmarkMode` is `.all`; else empty.
  public var landmarks: [FaceLandmark]
  /// The fifteen contours, in `FaceContourType` order, when `contourMode` is `.all`; else empty.
  public var contours: [FaceContour]
  /// How likely the face is smiling, in 0...1, when `classificationMode` is `.all`.
  public var smilingProbability: Float?
  /// How likely the subject's left eye is open, in 0...1, when `classificationMode` is `.all`.
  public var leftEyeOpenProbability: Float?
  /// How likely the subject's right eye is open, in 0...1, when `classificationMode` is `.all`.
  public var rightEyeOpenProbability: Float?
  /// An identifier that stays the same while the face stays in view from call to call, when
  /// `isTrackingEnabled` is set. It is not recognition: a face that leaves and comes back gets
  /// a new one.
  public var trackingID: Int?

  /// Creates a face.
  public init(
    frame: CGRect, headEulerAngleX: Float, headEulerAngleY: Float, headEulerAngleZ: Float,
    landmarks: [FaceLandmark] = [], contours: [FaceContour] = [], smilingProbability: Float? = nil,
    leftEyeOpenProbability: Float? = nil, rightEyeOpenProbability: Float? = nil, trackingID: Int? = nil
  ) {
    self.frame = frame
    self.headEulerAngleX = headEulerAngleX
    self.headEulerAngleY = headEulerAngleY
    self.headEulerAngleZ = headEulerAngleZ
    self.landmarks = landmarks
    self.contours = contours
    self.smilingProbability = smilingProbability
    self.leftEyeOpenProbability = leftEyeOpenProbability
    self.rightEyeOpenProbability = rightEyeOpenProbability
    self.trackingID = trackingID
  }

  /// The landmark of one type, or nil when landmarks were not asked for.
  public func landmark(ofType type: FaceLandmarkType) -> FaceLandmark? {
    landmarks.first { $0.type == type }
  }

  /// The contour of one type, or nil when contours were not asked for.
  public func contour(ofType type: FaceContourType) -> FaceContour? {
    contours.first { $0.type == type }
  }
}

/// The ten points ML Kit's landmark mode finds on a face (left and right are the subject's).
public enum FaceLandmarkType: String, Sendable, CaseIterable {
  /// The centre of the subject's left eye.
  case leftEye
  /// The centre of the subject's right eye.
  case rightEye
  /// The subject's left ear, where the face meets it.
  case leftEar
  /// The subject's right ear, where the face meets it.
  case rightEar
  /// Midway between the subject's left mouth corner and outer left eye corner.
  case leftCheek
  /// Midway between the subject's right mouth corner and outer right eye corner.
  case rightCheek
  /// The base of the nose, between the nostrils.
  case noseBase
  /// The subject's left mouth corner.
  case mouthLeft
  /// The subject's right mouth corner.
  case mouthRight
  /// The centre of the lower lip.
  case mouthBottom
}

/// A landmark on a face: ML Kit's `FaceLandmark`.
public struct FaceLandmark: Sendable, Equatable {
  /// Which landmark this is.
  public var type: FaceLandmarkType
  /// Where it is, in pixels.
  public var position: CGPoint
  /// Its depth on the scale of `position.x`: the face mesh's z in pixels, smaller nearer the
  /// camera, about zero at the centre of the head.
  public var depth: CGFloat

  /// Creates a landmark.
  public init(type: FaceLandmarkType, position: CGPoint, depth: CGFloat = 0) {
    self.type = type
    self.position = position
    self.depth = depth
  }
}

/// The fifteen outlines ML Kit's contour mode traces on a face (left and right are the
/// subject's).
///
/// Point order: the face and eyes are closed loops that go clockwise in the image, the face
/// from the top of the forehead, each eye from its corner on the subject's right; open
/// outlines (eyebrows, lips, nose bottom) run from the subject's right to the subject's left,
/// and the nose bridge from between the eyes down to the tip.
public enum FaceContourType: String, Sendable, CaseIterable {
  /// The outline of the face: 36 points.
  case face
  /// The top edge of the subject's left eyebrow: 5 points.
  case leftEyebrowTop
  /// The bottom edge of the subject's left eyebrow: 5 points.
  case leftEyebrowBottom
  /// The top edge of the subject's right eyebrow: 5 points.
  case rightEyebrowTop
  /// The bottom edge of the subject's right eyebrow: 5 points.
  case rightEyebrowBottom
  /// The opening of the subject's left eye: 16 points.
  case leftEye
  /// The opening of the subject's right eye: 16 points.
  case rightEye
  /// The top edge of the upper lip, corner to corner: 11 points.
  case upperLipTop
  /// The bottom edge of the upper lip: 9 points.
  case upperLipBottom
  /// The top edge of the lower lip: 9 points.
  case lowerLipTop
  /// The bottom edge of the lower lip: 9 points.
  case lowerLipBottom
  /// The nose bridge, from between the eyes to the tip: 2 points.
  case noseBridge
  /// The bottom of the nose, wing to wing: 3 points.
  case noseBottom
  /// The centre of the subject's left cheek: 1 point.
  case leftCheek
  /// The centre of the subject's right cheek: 1 point.
  case rightCheek

  /// How many points ML Kit gives this contour.
  public var pointCount: Int { FaceMeshFeatures.contourIndices[self]!.count }
}

/// An outline on a face: ML Kit's `FaceContour`.
public struct FaceContour: Sendable, Equatable {
  /// Which outline this is.
  public var type: FaceContourType
  /// Its points, in pixels, in the order `FaceContourType` describes.
  public var points: [CGPoint]
  /// Each point's depth, as `FaceLandmark.depth`; empty when not known.
  public var depths: [CGFloat]

  /// Creates a contour.
  public init(type: FaceContourType, points: [CGPoint], depths: [CGFloat] = []) {
    self.type = type
    self.points = points
    self.depths = depths
  }
}
