import Foundation

/// MediaPipe's face-geometry `Environment` proto: the virtual perspective camera the landmarks
/// are unprojected with, and where the screen origin is.
struct GeometryEnvironment: Sendable, Equatable {
  /// Where normalized screen coordinates start (`OriginPointLocation`).
  enum OriginPointLocation: Sendable, Equatable {
    /// y grows upwards (`BOTTOM_LEFT_CORNER`, OpenGL-style).
    case bottomLeftCorner
    /// y grows downwards (`TOP_LEFT_CORNER`, image-style, as the landmarker's output is).
    case topLeftCorner
  }

  var originPointLocation: OriginPointLocation
  /// Vertical field of view, in degrees; 0 < fov < 180.
  var verticalFOVDegrees: Float
  /// Distance of the near plane, in centimetres; > 0. Landmarks are projected onto it.
  var nearPlane: Float
  /// Distance of the far plane, in centimetres; > near. Validated but unused by the pose.
  var farPlane: Float

  /// What the Tasks FaceLandmarker uses when no environment is given
  /// (`face_geometry_from_landmarks_graph.cc`): top-left origin, a 63° vertical field of view,
  /// near plane 1 cm, far plane 100 m.
  static let faceLandmarker = GeometryEnvironment(
    originPointLocation: .topLeftCorner, verticalFOVDegrees: 63, nearPlane: 1, farPlane: 10_000)

  /// MediaPipe's `ValidatePerspectiveCamera`, with its 1e-9 margins.
  func validate() throws(FaceGeometryError) {
    let margin: Float = 1e-9
    guard nearPlane > margin else { throw .invalidEnvironment("near plane \(nearPlane) must be positive") }
    guard farPlane > nearPlane + margin else {
      throw .invalidEnvironment("far plane \(farPlane) must be beyond the near plane \(nearPlane)")
    }
    guard verticalFOVDegrees > margin, verticalFOVDegrees + margin < 180 else {
      throw .invalidEnvironment("vertical field of view \(verticalFOVDegrees)° must be between 0° and 180°")
    }
  }

  /// The height of the view frustum at the near plane: 2·near·tan(fov/2), in Float as MediaPipe
  /// computes it.
  var heightAtNearPlane: Float {
    // π rounded to the nearest Float, as MediaPipe's float literal is; `Float.pi` is rounded
    // toward zero, one ulp lower.
    let degreesToRadians: Float = 3.14159265358979323846 / 180
    return 2 * nearPlane * tanf(0.5 * degreesToRadians * verticalFOVDegrees)
  }
}
