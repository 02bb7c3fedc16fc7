/// An edge of the face mesh: two landmark indices that a drawing joins with a line.
public struct Connection: Sendable, Hashable {
  /// The index of the first landmark, 0..<478.
  public let start: Int
  /// The index of the second landmark, 0..<478.
  public let end: Int

  /// An edge from landmark `start` to landmark `end`.
  public init(start: Int, end: Int) {
    self.start = start
    self.end = end
  }
}

/// The edges of the 478-point face mesh, grouped as MediaPipe groups them for drawing
/// (`FaceLandmarksConnections` in MediaPipe's Python API; the same lists are class methods of
/// `FaceLandmarker` in its iOS API). "Left" and "right" are the subject's.
public enum FaceLandmarksConnections {
  /// The triangles of the face mesh, as edges (2556).
  public static let tesselation = connections(tesselationPairs)
  /// Lips, eyes, eyebrows and the face oval together.
  public static let contours = connections(contoursPairs)
  /// The outer and inner outlines of the lips.
  public static let lips = connections(lipsPairs)
  /// The outline of the subject's left eye.
  public static let leftEye = connections(leftEyePairs)
  /// The subject's left eyebrow.
  public static let leftEyebrow = connections(leftEyebrowPairs)
  /// The outline of the subject's left iris.
  public static let leftIris = connections(leftIrisPairs)
  /// The outline of the subject's right eye.
  public static let rightEye = connections(rightEyePairs)
  /// The subject's right eyebrow.
  public static let rightEyebrow = connections(rightEyebrowPairs)
  /// The outline of the subject's right iris.
  public static let rightIris = connections(rightIrisPairs)
  /// The outline of the face.
  public static let faceOval = connections(faceOvalPairs)
  /// The bridge and the base of the nose.
  public static let nose = connections(nosePairs)

  private static func connections(_ pairs: [UInt16]) -> [Connection] {
    stride(from: 0, to: pairs.count, by: 2).map { Connection(start: Int(pairs[$0]), end: Int(pairs[$0 + 1])) }
  }
}

extension FaceLandmarker {
  /// The lips' edges (MediaPipe iOS: `FaceLandmarker.lipsConnections()`).
  public static func lipsConnections() -> [Connection] { FaceLandmarksConnections.lips }
  /// The subject's left eye's edges.
  public static func leftEyeConnections() -> [Connection] { FaceLandmarksConnections.leftEye }
  /// The subject's left eyebrow's edges.
  public static func leftEyebrowConnections() -> [Connection] { FaceLandmarksConnections.leftEyebrow }
  /// The subject's left iris's edges.
  public static func leftIrisConnections() -> [Connection] { FaceLandmarksConnections.leftIris }
  /// The subject's right eye's edges.
  public static func rightEyeConnections() -> [Connection] { FaceLandmarksConnections.rightEye }
  /// The subject's right eyebrow's edges.
  public static func rightEyebrowConnections() -> [Connection] { FaceLandmarksConnections.rightEyebrow }
  /// The subject's right iris's edges.
  public static func rightIrisConnections() -> [Connection] { FaceLandmarksConnections.rightIris }
  /// The face oval's edges.
  public static func faceOvalConnections() -> [Connection] { FaceLandmarksConnections.faceOval }
  /// Lips, eyes, eyebrows and face oval together.
  public static func contoursConnections() -> [Connection] { FaceLandmarksConnections.contours }
  /// The mesh triangles' edges.
  public static func tesselationConnections() -> [Connection] { FaceLandmarksConnections.tesselation }
}
