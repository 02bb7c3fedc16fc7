import Foundation
import Visage

/// ML Kit's landmark types (`.leftEye`, `.noseBase`, ...): Visage's, under the same name.
public typealias FaceLandmarkType = Visage.FaceLandmarkType
/// ML Kit's contour types (`.face`, `.upperLipBottom`, ...): Visage's, under the same name.
public typealias FaceContourType = Visage.FaceContourType

/// A face found in an image: ML Kit's `Face`.
///
/// Positions are in pixels of the upright picture the image's orientation describes. Each
/// optional value comes with a `has…` flag, as in ML Kit; a value whose flag is false reads 0.
public final class Face: Sendable {
  /// The box around the face, forehead to chin.
  public let frame: CGRect
  /// The landmarks found (see `FaceDetectorOptions.landmarkMode`).
  public let landmarks: [FaceLandmark]
  /// The contours found (see `FaceDetectorOptions.contourMode`).
  public let contours: [FaceContour]
  /// Whether `headEulerAngleX` holds a value.
  public let hasHeadEulerAngleX: Bool
  /// Pitch in degrees: positive when the face looks up.
  public let headEulerAngleX: CGFloat
  /// Whether `headEulerAngleY` holds a value.
  public let hasHeadEulerAngleY: Bool
  /// Yaw in degrees: positive when the face turns toward the camera's right.
  public let headEulerAngleY: CGFloat
  /// Whether `headEulerAngleZ` holds a value.
  public let hasHeadEulerAngleZ: Bool
  /// Roll in degrees: positive when the face is rotated counter-clockwise in the picture.
  public let headEulerAngleZ: CGFloat
  /// Whether `smilingProbability` holds a value.
  public let hasSmilingProbability: Bool
  /// How likely the face is smiling, 0...1.
  public let smilingProbability: CGFloat
  /// Whether `leftEyeOpenProbability` holds a value.
  public let hasLeftEyeOpenProbability: Bool
  /// How likely the subject's left eye is open, 0...1.
  public let leftEyeOpenProbability: CGFloat
  /// Whether `rightEyeOpenProbability` holds a value.
  public let hasRightEyeOpenProbability: Bool
  /// How likely the subject's right eye is open, 0...1.
  public let rightEyeOpenProbability: CGFloat
  /// Whether `trackingID` holds a value.
  public let hasTrackingID: Bool
  /// An identifier kept while the face stays in view from image to image (not recognition).
  public let trackingID: Int

  init(_ face: Visage.Face, hasEulerAngles: Bool, landmarks: [FaceLandmark], contours: [FaceContour]) {
    frame = face.frame
    self.landmarks = landmarks
    self.contours = contours
    (hasHeadEulerAngleX, hasHeadEulerAngleY, hasHeadEulerAngleZ) = (hasEulerAngles, hasEulerAngles, hasEulerAngles)
    headEulerAngleX = hasEulerAngles ? CGFloat(face.headEulerAngleX) : 0
    headEulerAngleY = hasEulerAngles ? CGFloat(face.headEulerAngleY) : 0
    headEulerAngleZ = hasEulerAngles ? CGFloat(face.headEulerAngleZ) : 0
    (hasSmilingProbability, smilingProbability) = Self.value(face.smilingProbability)
    (hasLeftEyeOpenProbability, leftEyeOpenProbability) = Self.value(face.leftEyeOpenProbability)
    (hasRightEyeOpenProbability, rightEyeOpenProbability) = Self.value(face.rightEyeOpenProbability)
    (hasTrackingID, trackingID) = (face.trackingID != nil, face.trackingID ?? 0)
  }

  private static func value(_ probability: Float?) -> (Bool, CGFloat) {
    (probability != nil, CGFloat(probability ?? 0))
  }

  /// The landmark of a type, or nil when it was not found.
  public func landmark(ofType type: FaceLandmarkType) -> FaceLandmark? {
    landmarks.first { $0.type == type }
  }

  /// The contour of a type, or nil when it was not found.
  public func contour(ofType type: FaceContourType) -> FaceContour? {
    contours.first { $0.type == type }
  }
}

/// A point of interest on a face: ML Kit's `FaceLandmark`.
public final class FaceLandmark: Sendable {
  /// Which landmark this is.
  public let type: FaceLandmarkType
  /// Where it is: a `Vision3DPoint`, its depth from the face mesh.
  public let position: VisionPoint

  init(_ landmark: Visage.FaceLandmark) {
    type = landmark.type
    position = Vision3DPoint(x: landmark.position.x, y: landmark.position.y, z: landmark.depth)
  }
}

/// The outline of a facial feature: ML Kit's `FaceContour`.
public final class FaceContour: Sendable {
  /// Which outline this is.
  public let type: FaceContourType
  /// Its points, in ML Kit's order and number (`FaceContourType.pointCount`): `Vision3DPoint`s.
  public let points: [VisionPoint]

  init(_ contour: Visage.FaceContour) {
    type = contour.type
    points = contour.points.indices.map { i in
      Vision3DPoint(
        x: contour.points[i].x, y: contour.points[i].y, z: i < contour.depths.count ? contour.depths[i] : 0)
    }
  }
}
