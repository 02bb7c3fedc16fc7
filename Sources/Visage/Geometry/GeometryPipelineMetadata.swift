/// MediaPipe's `GeometryPipelineMetadata` proto (`face_geometry/proto/geometry_pipeline_metadata.proto`):
/// the canonical face mesh and the weighted landmarks the Procrustes fit uses.
///
/// The bundled `geometry_pipeline_metadata_landmarks.binarypb` holds a 468-vertex mesh (ids
/// equal to the face landmark ids), 898 triangles, and 33 weighted basis landmarks.
struct GeometryPipelineMetadata: Sendable, Equatable {
  /// What kind of landmarks the pipeline is fed (`InputSource`).
  enum InputSource: Sendable, Equatable {
    /// The 468 face-mesh landmarks with a relative z (`FACE_LANDMARK_PIPELINE`, also what
    /// `DEFAULT` means).
    case faceLandmarkPipeline
    /// The detector's keypoints, whose z is 0 and is replaced from the canonical model
    /// (`FACE_DETECTION_PIPELINE`).
    case faceDetectionPipeline
  }

  /// One `WeightedLandmarkRef`: a canonical-mesh vertex and its weight in the Procrustes fit.
  struct WeightedLandmark: Sendable, Equatable {
    var landmarkID: UInt32
    var weight: Float
  }

  /// A `Mesh3d` of type `VERTEX_PT` (x, y, z, u, v per vertex; positions in centimetres)
  /// with `TRIANGLE` primitives, the only types the proto defines.
  struct Mesh: Sendable, Equatable {
    /// Floats per vertex in `VERTEX_PT`: position (3) then texture coordinate (2).
    static let vertexSize = 5
    /// Where the position starts within a vertex (`mesh_3d_utils.cc`).
    static let positionOffset = 0
    /// Where the texture coordinate starts within a vertex.
    static let textureCoordinateOffset = 3
    /// Indices per primitive (`TRIANGLE`).
    static let primitiveSize = 3

    /// `vertexSize` floats per vertex.
    var vertexBuffer: [Float] = []
    /// Three vertex indices per triangle.
    var indexBuffer: [UInt32] = []

    /// The number of whole vertices in `vertexBuffer`.
    var vertexCount: Int { vertexBuffer.count / Self.vertexSize }

    /// The position of vertex `index`, in centimetres.
    func position(ofVertex index: Int) -> SIMD3<Float> {
      let base = index * Self.vertexSize + Self.positionOffset
      return SIMD3(vertexBuffer[base], vertexBuffer[base + 1], vertexBuffer[base + 2])
    }
  }

  /// `canonical_mesh` (field 1).
  var canonicalMesh: Mesh
  /// `procrustes_landmark_basis` (field 2), in file order.
  var procrustesLandmarkBasis: [WeightedLandmark]
  /// `input_source` (field 3).
  var inputSource: InputSource

  /// Builds metadata from its parts and applies MediaPipe's checks (`ValidateGeometryPipelineMetadata`).
  init(
    canonicalMesh: Mesh, procrustesLandmarkBasis: [WeightedLandmark], inputSource: InputSource = .faceLandmarkPipeline
  )
    throws(FaceGeometryError)
  {
    self.canonicalMesh = canonicalMesh
    self.procrustesLandmarkBasis = procrustesLandmarkBasis
    self.inputSource = inputSource
    try validate()
  }

  /// Parses the binary proto (such as `geometry_pipeline_metadata_landmarks.binarypb`) and
  /// validates it as MediaPipe does.
  ///
  /// Follows proto2 parsing rules: fields may come in any order, unknown fields are skipped, a
  /// repeated `canonical_mesh` is merged into one, enum values the proto does not define are
  /// ignored, and `vertex_buffer` / `index_buffer` are accepted packed or one value per tag.
  init(bytes: [UInt8]) throws(FaceGeometryError) {
    var mesh = Mesh()
    var basis: [WeightedLandmark] = []
    var source = InputSource.faceLandmarkPipeline
    do throws(ProtobufError) {
      var reader = ProtobufReader(bytes: bytes)
      while !reader.isAtEnd {
        let (field, wireType) = try reader.readTag()
        switch (field, wireType) {
        case (1, .lengthDelimited):
          var message = try reader.readLengthDelimited()
          try Self.merge(&message, into: &mesh)
        case (2, .lengthDelimited):
          var message = try reader.readLengthDelimited()
          basis.append(try Self.readWeightedLandmark(&message))
        case (3, .varint):
          // DEFAULT (0) means the landmark pipeline; undefined values stay unknown fields.
          switch try reader.readVarint() {
          case 0, 1: source = .faceLandmarkPipeline
          case 2: source = .faceDetectionPipeline
          default: break
          }
        default:
          try reader.skipValue(of: wireType)
        }
      }
    } catch {
      throw .malformedMetadata(offset: error.offset, reason: error.reason)
    }
    try self.init(canonicalMesh: mesh, procrustesLandmarkBasis: basis, inputSource: source)
  }

  /// Reads one `Mesh3d` message into `mesh`, appending to its buffers.
  private static func merge(_ reader: inout ProtobufReader, into mesh: inout Mesh) throws(ProtobufError) {
    while !reader.isAtEnd {
      let (field, wireType) = try reader.readTag()
      switch field {
      // vertex_type and primitive_type each define only value 0 (VERTEX_PT, TRIANGLE), and an
      // undefined value is an unknown field in proto2, so either way the types stay the same.
      case 3: try reader.appendFloats(wireType, to: &mesh.vertexBuffer)
      case 4: try reader.appendUInt32s(wireType, to: &mesh.indexBuffer)
      default: try reader.skipValue(of: wireType)
      }
    }
  }

  /// Reads one `WeightedLandmarkRef` message; absent fields are 0.
  private static func readWeightedLandmark(_ reader: inout ProtobufReader) throws(ProtobufError) -> WeightedLandmark {
    var landmark = WeightedLandmark(landmarkID: 0, weight: 0)
    while !reader.isAtEnd {
      let (field, wireType) = try reader.readTag()
      switch (field, wireType) {
      case (1, .varint): landmark.landmarkID = UInt32(truncatingIfNeeded: try reader.readVarint())
      case (2, .fixed32): landmark.weight = try reader.readFloat()
      default: try reader.skipValue(of: wireType)
      }
    }
    return landmark
  }

  /// MediaPipe's `ValidateGeometryPipelineMetadata` and `ValidateMesh3d`, plus finiteness,
  /// which MediaPipe does not check but without which every matrix would be NaN.
  private func validate() throws(FaceGeometryError) {
    let vertexCount = canonicalMesh.vertexCount
    guard canonicalMesh.vertexBuffer.count % Mesh.vertexSize == 0 else {
      throw .invalidMetadata(
        "the vertex buffer holds \(canonicalMesh.vertexBuffer.count) floats, not a multiple of \(Mesh.vertexSize)")
    }
    guard canonicalMesh.indexBuffer.count % Mesh.primitiveSize == 0 else {
      throw .invalidMetadata(
        "the index buffer holds \(canonicalMesh.indexBuffer.count) indices, not a multiple of \(Mesh.primitiveSize)")
    }
    if let index = canonicalMesh.indexBuffer.first(where: { Int($0) >= vertexCount }) {
      throw .invalidMetadata("mesh index \(index) refers past the \(vertexCount) vertices")
    }
    if let bad = canonicalMesh.vertexBuffer.firstIndex(where: { !$0.isFinite }) {
      throw .invalidMetadata("vertex buffer value \(bad) is \(canonicalMesh.vertexBuffer[bad])")
    }
    guard !procrustesLandmarkBasis.isEmpty else {
      throw .invalidMetadata("the Procrustes landmark basis is empty")
    }
    for landmark in procrustesLandmarkBasis {
      guard Int(landmark.landmarkID) < vertexCount else {
        throw .invalidMetadata("basis landmark \(landmark.landmarkID) refers past the \(vertexCount) vertices")
      }
      guard landmark.weight >= 0, landmark.weight.isFinite else {
        throw .invalidMetadata("basis landmark \(landmark.landmarkID) has weight \(landmark.weight)")
      }
    }
  }

  /// One weight per canonical vertex: 0 except for the basis landmarks. A landmark listed
  /// twice keeps its last weight, as MediaPipe's pipeline assigns them in order.
  var landmarkWeights: [Float] {
    var weights = [Float](repeating: 0, count: canonicalMesh.vertexCount)
    for landmark in procrustesLandmarkBasis { weights[Int(landmark.landmarkID)] = landmark.weight }
    return weights
  }

  /// The canonical vertex positions, in centimetres, indexed by landmark id.
  var canonicalPositions: [SIMD3<Float>] {
    (0..<canonicalMesh.vertexCount).map(canonicalMesh.position(ofVertex:))
  }
}
