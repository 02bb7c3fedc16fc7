/// Why the face-geometry stage (the facial transformation matrix) could not be set up.
public enum FaceGeometryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The geometry metadata (`geometry_pipeline_metadata_landmarks.binarypb` in the `.task`
  /// bundle) is not a well-formed protobuf message; `offset` is the byte where reading failed.
  case malformedMetadata(offset: Int, reason: String)
  /// The metadata reads correctly but breaks one of MediaPipe's rules for it (mesh sizes,
  /// landmark ids, weights).
  case invalidMetadata(String)
  /// The virtual camera is not usable (field of view, near and far planes).
  case invalidEnvironment(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .malformedMetadata(let offset, let reason):
      "malformed face geometry metadata at byte \(offset): \(reason)"
    case .invalidMetadata(let reason): "invalid face geometry metadata: \(reason)"
    case .invalidEnvironment(let reason): "invalid face geometry environment: \(reason)"
    }
  }
}
