import Foundation
import Testing
import VisageTestSupport

@testable import Visage

/// MediaPipe's own expectation for its face geometry graph
/// (`face_geometry_from_landmarks_graph_test.cc`: `face_geometry_expected_out.pbtxt`, every
/// float within 1e-4), from Tests/Fixtures/geometry/mediapipe_expected (its README says how it
/// was made), and the metric mesh's meaning.
@Suite struct MetricMeshTests {
  struct Expected: Decodable {
    var vertices: [[Float]]
    var poseTransformMatrix: [Float]
    var imageWidth: Int
    var imageHeight: Int
    var tolerance: Float
  }

  static func load() throws -> (landmarks: [SIMD3<Float>], expected: Expected) {
    let folder = Fixtures.fixturePath("geometry/mediapipe_expected/")
    let input = try JSONDecoder().decode(
      [[Float]].self, from: try #require(FileManager.default.contents(atPath: folder + "input_landmarks.json")))
    let expected = try JSONDecoder().decode(
      Expected.self, from: try #require(FileManager.default.contents(atPath: folder + "expected.json")))
    return (input.map { SIMD3($0[0], $0[1], $0[2]) }, expected)
  }

  /// The mesh and the matrix within MediaPipe's test's own margin, 1e-4 on every value.
  @Test func meshAndMatrixMatchMediaPipesExpectation() throws {
    let (landmarks, expected) = try Self.load()
    let geometry = try FaceGeometry(metadata: GeometryFixtures.metadataBytes())
    let (matrix, mesh) = try #require(
      geometry.geometry(landmarks: landmarks, imageWidth: expected.imageWidth, imageHeight: expected.imageHeight))
    #expect(mesh.count == 468 && expected.vertices.count == 468)
    var worstVertex: Float = 0
    for (vertex, want) in zip(mesh, expected.vertices) {
      worstVertex = max(worstVertex, abs(vertex.x - want[0]), abs(vertex.y - want[1]), abs(vertex.z - want[2]))
    }
    let worstMatrix = zip(matrix.rowMajor, expected.poseTransformMatrix).map { abs($0 - $1) }.max() ?? .infinity
    #expect(worstVertex <= expected.tolerance, "vertices off by \(worstVertex)")
    #expect(worstMatrix <= expected.tolerance, "matrix off by \(worstMatrix)")
    // The matrix alone is the same computation.
    #expect(
      geometry.transformationMatrix(
        landmarks: landmarks, imageWidth: expected.imageWidth, imageHeight: expected.imageHeight) == matrix)
  }

  /// A vertex taken to camera space by the matrix and projected by the 63° camera lands on its
  /// landmark (MediaPipe's definition of the mesh).
  @Test func theMeshProjectsOntoItsLandmarks() throws {
    let (landmarks, expected) = try Self.load()
    let (w, h) = (Float(expected.imageWidth), Float(expected.imageHeight))
    let geometry = try FaceGeometry(metadata: GeometryFixtures.metadataBytes())
    let (matrix, mesh) = try #require(
      geometry.geometry(landmarks: landmarks, imageWidth: expected.imageWidth, imageHeight: expected.imageHeight))
    let focal = (h / 2) / tanf(63 / 2 * .pi / 180)
    var worst: Float = 0
    for (vertex, landmark) in zip(mesh, landmarks) {
      let m = matrix.rowMajor
      let camera: [Float] = (0..<3).map { (r: Int) -> Float in
        m[4 * r] * vertex.x + m[4 * r + 1] * vertex.y + m[4 * r + 2] * vertex.z + m[4 * r + 3]
      }
      // Camera space: x right, y up, the face at negative z.
      let x = w / 2 + focal * camera[0] / -camera[2]
      let y = h / 2 - focal * camera[1] / -camera[2]
      worst = max(worst, abs(x - landmark.x * w), abs(y - landmark.y * h))
    }
    #expect(worst < 0.01, "reprojection off by \(worst) px")
  }
}
