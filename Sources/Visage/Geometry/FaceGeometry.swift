/// MediaPipe's face geometry pipeline (`face_geometry/libs/geometry_pipeline.cc`) as the Tasks
/// FaceLandmarker runs it: the facial transformation matrix of a face from its landmarks.
///
/// The screen landmarks are placed on the near plane of a virtual perspective camera,
/// unprojected to metric space (centimetres) with a scale found by two Procrustes fits
/// against the canonical face, and a last weighted Procrustes fit gives the pose: the matrix
/// mapping the canonical face model into camera space.
///
/// Everything the metadata and the camera fix is prepared at init; a call does a few passes
/// over the landmarks and three 33-point fits (five for detection-pipeline metadata), and
/// allocates nothing on the heap (about 8 µs per face in a release build). MediaPipe's graph
/// also outputs the metric face mesh, which its Tasks API drops; `geometry(…)` gives it.
struct FaceGeometry: Sendable {
  /// The parsed metadata.
  let metadata: GeometryPipelineMetadata
  /// The virtual camera.
  let environment: GeometryEnvironment
  private let solver: ProcrustesSolver
  private let heightAtNearPlane: Float

  /// MediaPipe's `kIsScreenLandmarkListTooCompactThreshold`.
  static let tooCompactThreshold: Float = 1e-3

  /// Parses `geometry_pipeline_metadata_landmarks.binarypb` (from the `.task` bundle) and
  /// prepares the pipeline for `environment`.
  init(metadata bytes: [UInt8], environment: GeometryEnvironment = .faceLandmarker) throws(FaceGeometryError) {
    try self.init(metadata: GeometryPipelineMetadata(bytes: bytes), environment: environment)
  }

  /// Prepares the pipeline for parsed `metadata` and `environment`.
  init(metadata: GeometryPipelineMetadata, environment: GeometryEnvironment = .faceLandmarker) throws(FaceGeometryError)
  {
    try environment.validate()
    self.metadata = metadata
    self.environment = environment
    solver = try ProcrustesSolver(sources: metadata.canonicalPositions, weights: metadata.landmarkWeights)
    heightAtNearPlane = environment.heightAtNearPlane
  }

  /// How many landmarks the pipeline reads: one per canonical vertex (468, the face mesh
  /// without the 10 iris points that follow it in the landmarker's 478).
  var landmarkCount: Int { metadata.canonicalMesh.vertexCount }

  /// The facial transformation matrix for one face.
  ///
  /// - Parameters:
  ///   - landmarks: the face's normalized landmarks as the landmarker outputs them (x and y in
  ///     0...1 of the image width and height, z relative and scaled like x); the first
  ///     `landmarkCount` are used, so the 478 of the landmarker can be passed as they are.
  ///   - imageWidth: the width in pixels of the image the landmarks are normalized to (the
  ///     image as given, before any rotation).
  ///   - imageHeight: its height in pixels.
  /// - Returns: nil where MediaPipe outputs no matrix for the face: the landmarks are "too
  ///   compact" (all within 1e-3 of their mean in x and y) or a Procrustes fit fails. Also nil
  ///   when MediaPipe would fail the whole graph instead (a non-positive image size, fewer
  ///   than `landmarkCount` landmarks) or produce NaN (non-finite landmarks).
  ///   - verticalFOVDegrees: the camera's vertical field of view for this image, in place of
  ///     the environment's (Visage: a camera whose focal length is known).
  func transformationMatrix(
    landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int, verticalFOVDegrees: Float? = nil
  ) -> Matrix4x4? {
    solve(
      landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight, verticalFOVDegrees: verticalFOVDegrees,
      mesh: nil)
  }

  /// The matrix and MediaPipe's metric face mesh (`FaceGeometry.mesh`'s positions): every
  /// landmark unprojected to centimetres as the pose fit's were, then taken back into the
  /// canonical face's frame by the inverse pose, so the face's own shape and expression at
  /// the canonical position (the matrix times a vertex is that vertex in camera space, and
  /// projected lands on its landmark). One vertex per canonical vertex (468). Nil as for
  /// `transformationMatrix`.
  func geometry(
    landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int, verticalFOVDegrees: Float? = nil
  ) -> (matrix: Matrix4x4, mesh: [SIMD3<Float>])? {
    var mesh: [SIMD3<Float>] = []
    guard
      let matrix = solve(
        landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight,
        verticalFOVDegrees: verticalFOVDegrees, mesh: &mesh)
    else { return nil }
    return (matrix, mesh)
  }

  private func solve(
    landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int, verticalFOVDegrees: Float?,
    mesh: UnsafeMutablePointer<[SIMD3<Float>]>?
  ) -> Matrix4x4? {
    let count = landmarkCount
    guard imageWidth > 0, imageHeight > 0, landmarks.count >= count else { return nil }
    let screen = landmarks[..<count]
    for point in screen where !(point.x.isFinite && point.y.isFinite && point.z.isFinite) { return nil }
    // Landmarks this close together would make the fit numerically unstable; MediaPipe skips
    // the face.
    if Self.isTooCompact(screen) { return nil }

    var camera = environment
    if let verticalFOVDegrees { camera.verticalFOVDegrees = verticalFOVDegrees }
    let height = verticalFOVDegrees == nil ? heightAtNearPlane : camera.heightAtNearPlane
    let frustum = Frustum(heightAtNearPlane: height, width: imageWidth, height: imageHeight)
    let topLeft = environment.originPointLocation == .topLeftCorner
    let near = environment.nearPlane

    // (1) Screen landmarks on the near plane: x and y across the frustum, z scaled like x.
    func project(_ point: SIMD3<Float>) -> SIMD3<Float> {
      let y = topLeft ? 1 - point.y : point.y
      return SIMD3(
        point.x * frustum.xScale + frustum.left, y * frustum.yScale + frustum.bottom, point.z * frustum.xScale)
    }
    // The mean projected depth, over every landmark (not only the weighted ones).
    var depthSum: Float = 0
    for point in screen { depthSum += point.z * frustum.xScale }
    let depthOffset = depthSum / Float(count)

    // Screen z is relative, so it is shifted to start at the near plane and divided by the
    // canonical-to-screen scale; x and y then scale with depth (perspective unprojection).
    // z is negated: screen space is left-handed, metric space right-handed.
    func unproject(_ point: SIMD3<Float>, scale: Float) -> SIMD3<Float> {
      let z = (point.z - depthOffset + near) / scale
      return SIMD3(point.x * z / near, point.y * z / near, -z)
    }

    let indices = solver.indices
    return withUnsafeTemporaryAllocation(of: SIMD3<Float>.self, capacity: solver.count) { targets -> Matrix4x4? in
      // (2) First scale estimate on the projected points: unprojecting needs a scale, and
      // the relative z alone does not give one.
      for (k, index) in indices.enumerated() {
        let p = project(screen[screen.startIndex + index])
        targets[k] = SIMD3(p.x, p.y, -p.z)
      }
      guard let firstScale = solver.solve(targets)?.scale else { return nil }

      // (3) Intermediate metric landmarks with that scale, and a second estimate from them.
      for (k, index) in indices.enumerated() {
        targets[k] = unproject(project(screen[screen.startIndex + index]), scale: firstScale)
      }
      if metadata.inputSource == .faceDetectionPipeline {
        guard let pose = solver.solve(targets) else { return nil }
        replaceDepths(of: targets, with: pose)
      }
      guard let secondScale = solver.solve(targets)?.scale else { return nil }

      // (4) Metric landmarks with the product of both scales, and the pose fit on them.
      let totalScale = firstScale * secondScale
      for (k, index) in indices.enumerated() {
        targets[k] = unproject(project(screen[screen.startIndex + index]), scale: totalScale)
      }
      guard var pose = solver.solve(targets) else { return nil }
      let firstPose = pose
      if metadata.inputSource == .faceDetectionPipeline {
        replaceDepths(of: targets, with: pose)
        guard let refined = solver.solve(targets) else { return nil }
        pose = refined
      }
      if let mesh {
        // (5) Every landmark in metric space (depths from the placed canonical model for
        // detection-pipeline metadata, as for the fit), then back by the inverse pose.
        let depthRow = SIMD3(
          firstPose.rotationAndScale[2, 0], firstPose.rotationAndScale[2, 1], firstPose.rotationAndScale[2, 2])
        let inverse = Self.inverse(pose)
        mesh.pointee = screen.enumerated().map { i, point in
          var m = unproject(project(point), scale: totalScale)
          if metadata.inputSource == .faceDetectionPipeline {
            m.z = (depthRow * metadata.canonicalMesh.position(ofVertex: i)).sum() + firstPose.translation.z
          }
          return inverse(m)
        }
      }
      return pose.matrix
    }
  }

  /// The inverse of a pose's affine map, x ↦ A⁻¹(x − t), computed in Double.
  private static func inverse(_ pose: ProcrustesSolver.Solution) -> (SIMD3<Float>) -> SIMD3<Float> {
    let a = (0..<3).map { r in SIMD3<Double>((0..<3).map { Double(pose.rotationAndScale[r, $0]) }) }
    // The adjugate's rows over the determinant: rows of A⁻¹ are cross products of A's columns.
    let c = (0..<3).map { col in SIMD3(a[0][col], a[1][col], a[2][col]) }
    func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
      SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
    }
    let determinant = (c[0] * cross(c[1], c[2])).sum()
    let rows = [cross(c[1], c[2]), cross(c[2], c[0]), cross(c[0], c[1])].map { $0 / determinant }
    let t = SIMD3<Double>(pose.translation)
    return { x in
      let d = SIMD3<Double>(x) - t
      return SIMD3<Float>(SIMD3((rows[0] * d).sum(), (rows[1] * d).sum(), (rows[2] * d).sum()))
    }
  }

  /// Detector keypoints have no depth, so the detection pipeline takes each point's z from the
  /// canonical model placed by `pose`.
  private func replaceDepths(of targets: UnsafeMutableBufferPointer<SIMD3<Float>>, with pose: ProcrustesSolver.Solution)
  {
    let depthRow = SIMD3(pose.rotationAndScale[2, 0], pose.rotationAndScale[2, 1], pose.rotationAndScale[2, 2])
    for (k, source) in solver.sources.enumerated() {
      targets[k].z = (depthRow * source).sum() + pose.translation.z
    }
  }

  /// Whether every landmark is within `tooCompactThreshold` of the landmarks' mean in x and y,
  /// with MediaPipe's running mean (mean += (v − mean) / (i + 1)), in Float.
  static func isTooCompact(_ points: ArraySlice<SIMD3<Float>>) -> Bool {
    var meanX: Float = 0
    var meanY: Float = 0
    for (i, point) in points.enumerated() {
      meanX += (point.x - meanX) / Float(i + 1)
      meanY += (point.y - meanY) / Float(i + 1)
    }
    var maxSquaredDistance: Float = 0
    for point in points {
      let dx = point.x - meanX
      let dy = point.y - meanY
      maxSquaredDistance = max(maxSquaredDistance, dx * dx + dy * dy)
    }
    return maxSquaredDistance.squareRoot() <= tooCompactThreshold
  }
}

/// The perspective camera's frustum at the near plane for one image size
/// (`PerspectiveCameraFrustum`), in Float as MediaPipe computes it.
private struct Frustum {
  var left: Float
  var bottom: Float
  /// right − left.
  var xScale: Float
  /// top − bottom.
  var yScale: Float

  init(heightAtNearPlane height: Float, width imageWidth: Int, height imageHeight: Int) {
    // The near-plane window has the image's aspect ratio.
    let width = Float(imageWidth) * height / Float(imageHeight)
    left = -0.5 * width
    bottom = -0.5 * height
    xScale = 0.5 * width - left
    yScale = 0.5 * height - bottom
  }
}
