import Foundation
import Testing
import VisageTFLite
import VisageTestSupport

@testable import Visage

/// MediaPipe 1.2.2's landmarks and facial transformation matrices, from
/// Tests/Fixtures/geometry/mediapipe.json (written by Tools/make_geometry_fixtures.py).
enum GeometryFixtures {
  struct Face: Decodable, Sendable {
    var matrix: [[Float]]
    var landmarks: [[Float]]

    var points: [SIMD3<Float>] { landmarks.map { SIMD3($0[0], $0[1], $0[2]) } }
  }

  struct Case: Decodable, Sendable, CustomStringConvertible {
    var name: String
    var width: Int
    var height: Int
    var faces: [Face]
    var description: String { name }
  }

  private struct File: Decodable {
    var cases: [Case]
  }

  static let cases: [Case] = {
    guard let data = FileManager.default.contents(atPath: Fixtures.fixturePath("geometry/mediapipe.json")),
      let file = try? JSONDecoder().decode(File.self, from: data)
    else { return [] }
    return file.cases
  }()

  /// The bundled `geometry_pipeline_metadata_landmarks.binarypb`.
  static func metadataBytes() throws -> [UInt8] {
    try TaskBundle(bytes: Fixtures.taskBundleBytes()).data(named: "geometry_pipeline_metadata_landmarks.binarypb")
  }
}

/// A few protobuf wire-format writers, to build metadata variants.
private enum Wire {
  static func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    return bytes + [UInt8(value)]
  }

  static func tag(_ field: UInt64, _ wireType: UInt64) -> [UInt8] { varint(field << 3 | wireType) }

  static func fixed32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

  static func message(_ field: UInt64, _ body: [UInt8]) -> [UInt8] {
    tag(field, 2) + varint(UInt64(body.count)) + body
  }

  /// A `GeometryPipelineMetadata`, its repeated mesh fields packed or one value per tag.
  static func metadata(_ metadata: GeometryPipelineMetadata, packed: Bool, inputSource: UInt64? = nil) -> [UInt8] {
    var mesh = tag(1, 0) + varint(0) + tag(2, 0) + varint(0)
    if packed {
      mesh += message(3, metadata.canonicalMesh.vertexBuffer.flatMap { fixed32($0.bitPattern) })
      mesh += message(4, metadata.canonicalMesh.indexBuffer.flatMap { varint(UInt64($0)) })
    } else {
      for value in metadata.canonicalMesh.vertexBuffer { mesh += tag(3, 5) + fixed32(value.bitPattern) }
      for index in metadata.canonicalMesh.indexBuffer { mesh += tag(4, 0) + varint(UInt64(index)) }
    }
    var bytes: [UInt8] = []
    // Field order differs from the bundled file (input_source first) and unknown fields of
    // every wire type are mixed in; a parser must not care.
    if let inputSource { bytes += tag(3, 0) + varint(inputSource) }
    bytes += tag(15, 0) + varint(300) + tag(16, 1) + [UInt8](repeating: 7, count: 8) + tag(17, 5) + fixed32(1)
    bytes += message(1, mesh + message(9, [1, 2, 3]))
    for landmark in metadata.procrustesLandmarkBasis {
      bytes += message(
        2, tag(1, 0) + varint(UInt64(landmark.landmarkID)) + tag(2, 5) + fixed32(landmark.weight.bitPattern))
    }
    return bytes
  }
}

@Suite struct FaceGeometryTests {
  static let metadata: GeometryPipelineMetadata? = try? GeometryPipelineMetadata(
    bytes: GeometryFixtures.metadataBytes())

  // MARK: Metadata

  @Test func bundledMetadataParses() throws {
    let bytes = try GeometryFixtures.metadataBytes()
    #expect(bytes.count == 19376)
    let metadata = try GeometryPipelineMetadata(bytes: bytes)
    let mesh = metadata.canonicalMesh
    #expect(mesh.vertexBuffer.count == 468 * 5)
    #expect(mesh.vertexCount == 468)
    #expect(mesh.indexBuffer.count == 898 * 3)
    #expect(Array(mesh.indexBuffer.prefix(3)) == [173, 155, 133])
    #expect(mesh.position(ofVertex: 1) == SIMD3(0, -1.126865, 7.475604))
    #expect(mesh.position(ofVertex: 33) == SIMD3(-4.445859, 2.663991, 3.173422))
    #expect(mesh.position(ofVertex: 263) == SIMD3(4.445859, 2.663991, 3.173422))
    #expect(Array(mesh.vertexBuffer[8..<10]) == [0.500026, 0.547487])  // vertex 1's texture coordinate
    #expect(metadata.inputSource == .faceLandmarkPipeline)

    let basis = metadata.procrustesLandmarkBasis
    #expect(basis.count == 33)
    #expect(basis.first == .init(landmarkID: 4, weight: 0.070909940))
    #expect(basis.first(where: { $0.landmarkID == 358 })?.weight == 0.120625205)
    #expect(abs(basis.map(\.weight).reduce(0, +) - 1.055) < 1e-5)
    let weights = metadata.landmarkWeights
    #expect(weights.count == 468)
    #expect(weights.filter { $0 > 0 }.count == 33)

    let geometry = try FaceGeometry(metadata: bytes)
    #expect(geometry.landmarkCount == 468)
  }

  @Test func packedAndReorderedEncodingsParseTheSame() throws {
    let metadata = try #require(Self.metadata)
    for packed in [false, true] {
      let bytes = Wire.metadata(metadata, packed: packed, inputSource: 1)
      #expect(try GeometryPipelineMetadata(bytes: bytes) == metadata, "packed: \(packed)")
    }
    // DEFAULT (0) means the landmark pipeline; 2 the detection pipeline; undefined values are
    // unknown fields and leave the default.
    func source(_ value: UInt64) throws -> GeometryPipelineMetadata.InputSource {
      try GeometryPipelineMetadata(bytes: Wire.metadata(metadata, packed: true, inputSource: value)).inputSource
    }
    #expect(try source(0) == .faceLandmarkPipeline)
    #expect(try source(2) == .faceDetectionPipeline)
    #expect(try source(7) == .faceLandmarkPipeline)
  }

  @Test func invalidMetadataIsRefused() throws {
    let metadata = try #require(Self.metadata)
    func refuses(_ change: (inout GeometryPipelineMetadata) -> Void, _ comment: Comment) {
      var changed = metadata
      change(&changed)
      #expect(throws: FaceGeometryError.self, comment) {
        try GeometryPipelineMetadata(bytes: Wire.metadata(changed, packed: true))
      }
    }
    refuses({ $0.canonicalMesh.vertexBuffer.removeLast() }, "vertex buffer not a multiple of 5")
    refuses({ $0.canonicalMesh.indexBuffer.removeLast() }, "index buffer not a multiple of 3")
    refuses({ $0.canonicalMesh.indexBuffer[7] = 468 }, "index past the vertices")
    refuses({ $0.canonicalMesh.vertexBuffer[3] = .nan }, "NaN vertex")
    refuses({ $0.procrustesLandmarkBasis = [] }, "empty basis")
    refuses({ $0.procrustesLandmarkBasis[5].landmarkID = 468 }, "basis id past the vertices")
    refuses({ $0.procrustesLandmarkBasis[5].weight = -0.5 }, "negative weight")
    refuses({ $0.procrustesLandmarkBasis[5].weight = .infinity }, "infinite weight")
    // Metadata MediaPipe accepts but whose every fit would fail: refused by the pipeline.
    var weightless = metadata
    weightless.procrustesLandmarkBasis = metadata.procrustesLandmarkBasis.map {
      .init(landmarkID: $0.landmarkID, weight: 0)
    }
    #expect(throws: FaceGeometryError.self, "zero total weight") {
      try FaceGeometry(metadata: Wire.metadata(weightless, packed: true))
    }
    var single = metadata
    single.procrustesLandmarkBasis = [.init(landmarkID: 4, weight: 1)]
    #expect(throws: FaceGeometryError.self, "one weighted point fixes no scale") {
      try FaceGeometry(metadata: Wire.metadata(single, packed: false))
    }
    // A landmark listed twice keeps its last weight, as in MediaPipe.
    var repeated = metadata
    repeated.procrustesLandmarkBasis.append(.init(landmarkID: 4, weight: 0.5))
    let weights = try GeometryPipelineMetadata(bytes: Wire.metadata(repeated, packed: true)).landmarkWeights
    #expect(weights[4] == 0.5)

    var wideCamera = GeometryEnvironment.faceLandmarker
    wideCamera.verticalFOVDegrees = 180
    #expect(throws: FaceGeometryError.self, "180° field of view") {
      try FaceGeometry(metadata: metadata, environment: wideCamera)
    }
    var flatCamera = GeometryEnvironment.faceLandmarker
    flatCamera.farPlane = flatCamera.nearPlane
    #expect(throws: FaceGeometryError.self, "far plane at the near plane") {
      try FaceGeometry(metadata: metadata, environment: flatCamera)
    }
  }

  @Test func malformedWireFormatThrows() {
    let cases: [(bytes: [UInt8], what: String)] = [
      ([0x08], "varint value missing"),
      ([0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], "varint of 11 bytes"),
      ([0x0A, 0x05, 1, 2], "length past the end"),
      ([0x0A] + Wire.varint(UInt64.max), "length that does not fit in an Int"),
      ([0x00, 0x00], "field number 0"),
      ([0x0B], "start group"),
      ([0x0E], "wire type 6"),
      ([0x15, 1, 2, 3], "fixed32 cut short"),
      ([0x11, 1, 2, 3, 4, 5, 6, 7], "fixed64 cut short"),
      (Wire.message(1, Wire.message(3, [0, 0, 128])), "packed floats not a multiple of 4 bytes"),
      (Wire.message(1, Wire.message(4, [0x80])), "packed varint cut short"),
      (Wire.varint(UInt64(UInt32.max) + 1), "tag wider than 32 bits"),
    ]
    for (bytes, what) in cases {
      #expect(throws: FaceGeometryError.self, "\(what)") { try GeometryPipelineMetadata(bytes: bytes) }
    }
    if case .malformedMetadata(let offset, _)? = Self.error(parsing: [0x0A, 0x02, 0x18, 0x07, 0x0A, 0x05, 1]) {
      #expect(offset == 5, "the offset names the second mesh field's length")
    } else {
      Issue.record("expected a malformedMetadata error")
    }
  }

  private static func error(parsing bytes: [UInt8]) -> FaceGeometryError? {
    do {
      _ = try GeometryPipelineMetadata(bytes: bytes)
      return nil
    } catch {
      return error
    }
  }

  @Test func truncatedMetadataThrowsOrParses() throws {
    let bytes = try GeometryFixtures.metadataBytes()
    // The mesh is one length-delimited field at the start; cutting inside it always throws.
    // Past it, a cut between basis entries leaves a valid shorter message.
    var reader = ProtobufReader(bytes: bytes)
    #expect(try reader.readTag() == (1, .lengthDelimited))
    _ = try reader.readLengthDelimited()
    let meshEnd = reader.offset
    #expect(meshEnd > 19000)
    var parsed = 0
    for length in stride(from: 0, to: bytes.count, by: 3) {
      let prefix = Array(bytes[..<length])
      if (try? GeometryPipelineMetadata(bytes: prefix)) != nil {
        parsed += 1
        #expect(length >= meshEnd, "a cut at \(length), inside the mesh, parsed")
      }
    }
    #expect(parsed > 0, "cuts after whole basis entries give valid metadata")
  }

  @Test func flippedBytesNeverCrash() throws {
    let bytes = try GeometryFixtures.metadataBytes()
    let face = try #require(GeometryFixtures.cases.first?.faces.first)
    var random = RandomSource(seed: 0x6E0)
    var outcomes = (threw: 0, parsed: 0, matrices: 0)
    for _ in 0..<400 {
      var corrupt = bytes
      for _ in 0..<random.int(in: 1..<4) {
        corrupt[random.int(in: 0..<corrupt.count)] ^= UInt8(truncatingIfNeeded: random.int(in: 1..<256))
      }
      guard let geometry = try? FaceGeometry(metadata: corrupt) else {
        outcomes.threw += 1
        continue
      }
      outcomes.parsed += 1
      // A flipped vertex or weight still gives metadata MediaPipe accepts; the matrix must
      // then be absent or finite.
      if let matrix = geometry.transformationMatrix(landmarks: face.points, imageWidth: 512, imageHeight: 512) {
        outcomes.matrices += 1
        let finite = matrix.rowMajor.allSatisfy { $0.isFinite }
        #expect(finite)
      }
    }
    #expect(outcomes.threw > 0 && outcomes.parsed > 0, "\(outcomes)")
  }

  // MARK: Parity with MediaPipe

  @Test(arguments: GeometryFixtures.cases)
  func matchesMediaPipe(_ fixture: GeometryFixtures.Case) throws {
    let geometry = try FaceGeometry(metadata: GeometryFixtures.metadataBytes())
    var worst = (rotation: Float(0), translation: Float(0))
    for (index, face) in fixture.faces.enumerated() {
      #expect(face.landmarks.count == 478)
      let matrix = try #require(
        geometry.transformationMatrix(landmarks: face.points, imageWidth: fixture.width, imageHeight: fixture.height),
        "\(fixture.name) face \(index)")
      #expect(matrix.rows[3] == [0, 0, 0, 1])
      for row in 0..<3 {
        for column in 0..<3 {
          worst.rotation = max(worst.rotation, abs(matrix[row, column] - face.matrix[row][column]))
        }
        worst.translation = max(worst.translation, abs(matrix[row, 3] - face.matrix[row][3]))
      }
    }
    print(
      "geometry parity \(fixture.name): \(fixture.faces.count) face(s), "
        + "max |Δ| rotation \(worst.rotation), translation \(worst.translation) cm")
    #expect(worst.rotation <= 1e-3, "rotation entries")
    #expect(worst.translation <= 0.05, "translation (cm)")
  }

  @Test func detectionPipelineMetadataGivesARotation() throws {
    // FACE_DETECTION_PIPELINE replaces the landmarks' depth from the canonical model; fed
    // flattened landmarks it must still find a proper rotation of scale about 1.
    var metadata = try #require(Self.metadata)
    metadata.inputSource = .faceDetectionPipeline
    let geometry = try FaceGeometry(metadata: metadata)
    let fixture = try #require(GeometryFixtures.cases.first)
    let flat = try #require(fixture.faces.first).points.map { SIMD3($0.x, $0.y, 0) }
    let matrix = try #require(
      geometry.transformationMatrix(landmarks: flat, imageWidth: fixture.width, imageHeight: fixture.height))
    var linear = Matrix3.zero
    for row in 0..<3 { for column in 0..<3 { linear[row, column] = matrix[row, column] } }
    let gram = linear.transposed * linear
    for i in 0..<3 { #expect(abs(gram[i, i] - 1) < 0.05, "column \(i) has length² \(gram[i, i])") }
    #expect(linear.determinant > 0)
    #expect(matrix[2, 3] < -10, "the face is in front of the camera")
  }

  @Test func fixtureIsPresent() {
    #expect(GeometryFixtures.cases.count >= 5)
    #expect(GeometryFixtures.cases.map(\.faces.count).reduce(0, +) >= 8)
  }

  // MARK: Degenerate input

  @Test func degenerateLandmarksGiveNilOrFiniteMatrices() throws {
    let geometry = try FaceGeometry(metadata: GeometryFixtures.metadataBytes())
    let face = try #require(GeometryFixtures.cases.first?.faces.first).points
    func check(_ landmarks: [SIMD3<Float>], width: Int = 640, height: Int = 480, _ comment: Comment) -> Matrix4x4? {
      let matrix = geometry.transformationMatrix(landmarks: landmarks, imageWidth: width, imageHeight: height)
      let finite = matrix?.rowMajor.allSatisfy { $0.isFinite } ?? true
      #expect(finite, comment)
      return matrix
    }
    // All at one point: MediaPipe's "too compact" rule skips the face.
    #expect(check(Array(repeating: SIMD3(0.5, 0.5, 0), count: 478), "all equal") == nil)
    #expect(check(Array(repeating: .zero, count: 478), "all zero") == nil)
    let tiny = face.map { SIMD3(0.5, 0.5, 0) + ($0 - SIMD3(0.5, 0.5, 0)) * 1e-4 }
    #expect(check(tiny, "within 1e-3 of the mean") == nil)
    // Spread out but flat or collinear: the fits may fail or succeed, never NaN.
    _ = check(face.map { SIMD3($0.x, $0.y, 0) }, "z all zero")
    _ = check(face.map { SIMD3($0.x, $0.x, $0.x) }, "collinear")
    _ = check(face.map { SIMD3($0.x, 0.5, 0) }, "a horizontal line")
    _ = check(face.map { $0 * SIMD3(1, 1, 1e6) }, "huge z")
    _ = check(face.map { SIMD3($0.x * 1e6, $0.y * 1e6, $0.z) }, "huge spread")
    _ = check(face, width: 1, height: 100_000, "extreme aspect ratio")
    // Not what MediaPipe accepts: nil.
    var withNaN = face
    withNaN[10].y = .nan
    #expect(check(withNaN, "NaN landmark") == nil)
    var withInfinity = face
    withInfinity[400].z = .infinity
    #expect(check(withInfinity, "infinite landmark") == nil)
    #expect(check(Array(face.prefix(467)), "467 landmarks") == nil)
    #expect(check(face, width: 0, height: 480, "zero width") == nil)
    #expect(check(face, width: 640, height: -1, "negative height") == nil)
    // The 468 mesh landmarks alone are enough; the iris points are not used.
    #expect(check(Array(face.prefix(468)), "468 landmarks") == check(face, "478 landmarks"))
  }

  // MARK: Procrustes

  @Test func procrustesRecoversAKnownSimilarity() throws {
    var random = RandomSource(seed: 42)
    let sources = (0..<50).map { _ in
      let v = random.floats(3, in: -5...5)
      return SIMD3(v[0], v[1], v[2])
    }
    let weights = (0..<50).map { $0 % 3 == 0 ? 0 : Float(1 + $0 % 5) }
    let solver = try ProcrustesSolver(sources: sources, weights: weights)
    #expect(solver.count == weights.filter { $0 > 0 }.count)
    // A rotation about (1, 2, 3) by 0.7 rad, scale 2.5, translation (3, −4, −40).
    let axis = SIMD3<Float>(1, 2, 3) / Float(14).squareRoot()
    let (c, s) = (cos(Float(0.7)), sin(Float(0.7)))
    func rotate(_ v: SIMD3<Float>) -> SIMD3<Float> {
      let cross = SIMD3(axis.y * v.z - axis.z * v.y, axis.z * v.x - axis.x * v.z, axis.x * v.y - axis.y * v.x)
      return v * c + cross * s + axis * ((axis * v).sum() * (1 - c))
    }
    let translation = SIMD3<Float>(3, -4, -40)
    let targets = solver.indices.map { 2.5 * rotate(sources[$0]) + translation }
    let solution = try #require(solver.solve(targets))
    #expect(abs(solution.scale - 2.5) < 1e-5)
    #expect(abs(solution.rotationAndScale.determinant - 2.5 * 2.5 * 2.5) < 1e-3, "a rotation, not a reflection")
    for (k, index) in solver.indices.enumerated() {
      let mapped = solution.rotationAndScale * sources[index] + solution.translation
      let error = mapped - targets[k]
      #expect(max(abs(error.x), abs(error.y), abs(error.z)) < 1e-4)
    }
    // Mirrored targets: the best proper rotation, never a reflection.
    let mirrored = targets.map { SIMD3(-$0.x, $0.y, $0.z) }
    let proper = try #require(solver.solve(mirrored))
    #expect(proper.rotationAndScale.determinant > 0)
    // All targets at one point: the design matrix vanishes and the fit fails.
    #expect(solver.solve(Array(repeating: SIMD3(1, 2, 3), count: solver.count)) == nil)
  }

  @Test func jacobiSVDReconstructsItsInput() {
    var random = RandomSource(seed: 7)
    for trial in 0..<200 {
      let values = random.floats(9, in: -10...10)
      var matrix = Matrix3(
        column0: SIMD3(values[0], values[1], values[2]), column1: SIMD3(values[3], values[4], values[5]),
        column2: SIMD3(values[6], values[7], values[8]))
      if trial % 4 == 1 { matrix.column2 = matrix.column0 * 2 }  // rank 2
      if trial % 4 == 2 { matrix = Matrix3.zero }
      guard let svd = JacobiSVD3(matrix) else {
        Issue.record("no SVD for \(matrix)")
        continue
      }
      let sigma = svd.singularValues
      #expect(sigma.x >= sigma.y && sigma.y >= sigma.z && sigma.z >= 0)
      var diagonal = Matrix3.zero
      diagonal[0, 0] = sigma.x
      diagonal[1, 1] = sigma.y
      diagonal[2, 2] = sigma.z
      let rebuilt = svd.u * diagonal * svd.v.transposed
      for column in 0..<3 {
        for row in 0..<3 { #expect(abs(rebuilt[row, column] - matrix[row, column]) < 1e-4) }
      }
      let orthogonality = svd.u.transposed * svd.u
      for i in 0..<3 { #expect(abs(orthogonality[i, i] - 1) < 1e-5) }
    }
    var nan = Matrix3.identity
    nan[1, 2] = .nan
    #expect(JacobiSVD3(nan) == nil)
  }

  // MARK: Matrix4x4

  @Test func matrixLayouts() {
    let matrix = Matrix4x4(rowMajor: (0..<16).map(Float.init))
    #expect(matrix[1, 2] == 6)
    #expect(matrix.rows[3] == [12, 13, 14, 15])
    #expect(matrix.columnMajor.prefix(4) == [0, 4, 8, 12])
    #expect(Matrix4x4(rows: matrix.rows) == matrix)
    #expect(matrix.transposed[2, 1] == 6)
    #expect(matrix.transposed.transposed == matrix)
    var changed = Matrix4x4.identity
    changed[0, 3] = -2.5
    #expect(changed != .identity)
    #expect(changed.rowMajor == [1, 0, 0, -2.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
  }
}
