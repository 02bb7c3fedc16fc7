/// MediaPipe's weighted orthogonal Procrustes solver (`libs/procrustes_solver.cc`): the
/// similarity transform (uniform scale, rotation, translation) that best maps the canonical
/// points onto target points in the weighted least-squares sense.
///
/// The source points and weights are fixed by the metadata, so everything that depends on them
/// alone (square-root weights, weighted and centred sources, the scale denominator) is
/// computed once here. Points of weight 0 contribute exact zeros to every sum, so only the
/// weighted points (33 of 468 in the bundled metadata) are kept. Float throughout, like
/// MediaPipe's Eigen `Matrix3Xf` code.
struct ProcrustesSolver: Sendable {
  /// A solution: target ≈ `rotationAndScale` · source + `translation`.
  struct Solution: Sendable, Equatable {
    /// s·R, with R a proper rotation (determinant +1).
    var rotationAndScale: Matrix3
    var translation: SIMD3<Float>

    /// The norm of the first column of the 4×4 transform, which is the scale s
    /// (MediaPipe's `EstimateScale`).
    var scale: Float {
      let column = rotationAndScale.column0
      return (column * column).sum().squareRoot()
    }

    /// [[s·R, t], [0, 0, 0, 1]].
    var matrix: Matrix4x4 {
      var result = Matrix4x4.identity
      for row in 0..<3 {
        for column in 0..<3 { result[row, column] = rotationAndScale[row, column] }
        result[row, 3] = translation[row]
      }
      return result
    }
  }

  /// MediaPipe's `kAbsoluteErrorEps`: the floor for the total weight, the design matrix
  /// norm, the scale denominator and the scale.
  static let epsilon: Float = 1e-9

  /// The ids of the points with a positive weight, ascending: the targets `solve` takes are
  /// for these points, in this order.
  let indices: [Int]
  /// √wᵢ.
  private let sqrtWeights: [Float]
  /// The weighted points' source positions, in `indices` order (the detection pipeline
  /// places them with a pose to get depths).
  let sources: [SIMD3<Float>]
  /// √wᵢ·sourceᵢ (Aᵂ in the paper MediaPipe cites, Akca 2003).
  private let weightedSources: [SIMD3<Float>]
  /// √wᵢ·(sourceᵢ − c), c the weighted centre of mass of the sources.
  private let centeredWeightedSources: [SIMD3<Float>]
  /// Σ (√wᵢ)².
  private let totalWeight: Float
  /// Σ centredᵢ · weightedᵢ: the denominator of the optimal scale.
  private let scaleDenominator: Float

  /// Prepares the solver for `sources` (one per point) with `weights` (one per point).
  ///
  /// Throws, as MediaPipe's validation would on every frame, when there are no points, the
  /// counts differ, a weight is negative or not finite, the weights sum to at most 1e-9, or
  /// the weighted points are all at one place (the scale denominator is at most 1e-9).
  init(sources allSources: [SIMD3<Float>], weights: [Float]) throws(FaceGeometryError) {
    guard !allSources.isEmpty, allSources.count == weights.count else {
      throw .invalidMetadata(
        "Procrustes needs one weight per point (\(allSources.count) points, \(weights.count) weights)")
    }
    var weightSum: Float = 0
    for weight in weights {
      guard weight >= 0, weight.isFinite else {
        throw .invalidMetadata("Procrustes weight \(weight) is not a finite non-negative number")
      }
      weightSum += weight
    }
    guard weightSum > Self.epsilon else { throw .invalidMetadata("the Procrustes weights sum to \(weightSum)") }

    let indices = weights.indices.filter { weights[$0] > 0 }
    let sqrtWeights = indices.map { weights[$0].squareRoot() }
    let sources = indices.map { allSources[$0] }
    let weightedSources = zip(sources, sqrtWeights).map { $0 * $1 }
    var totalWeight: Float = 0
    for root in sqrtWeights { totalWeight += root * root }
    var centerOfMass = SIMD3<Float>.zero
    for (weighted, root) in zip(weightedSources, sqrtWeights) { centerOfMass += weighted * root }
    centerOfMass /= totalWeight
    let centered = zip(weightedSources, sqrtWeights).map { $0 - centerOfMass * $1 }
    var denominator: Float = 0
    for (c, a) in zip(centered, weightedSources) { denominator += (c * a).sum() }
    guard denominator > Self.epsilon else {
      throw .invalidMetadata("the weighted canonical points are too close together (scale denominator \(denominator))")
    }

    self.indices = indices
    self.sqrtWeights = sqrtWeights
    self.sources = sources
    self.weightedSources = weightedSources
    self.centeredWeightedSources = centered
    self.totalWeight = totalWeight
    self.scaleDenominator = denominator
  }

  /// The number of weighted points: how many targets `solve` takes.
  var count: Int { indices.count }

  /// Fits the sources to `targets` (`targets[k]` is the target of point `indices[k]`).
  ///
  /// Returns nil where MediaPipe's solver fails (the design matrix's norm or the scale is at
  /// most 1e-9) and where the targets are not finite.
  func solve<Targets: RandomAccessCollection<SIMD3<Float>>>(_ targets: Targets) -> Solution?
  where Targets.Index == Int {
    precondition(targets.count == count, "one target per weighted point")
    let base = targets.startIndex

    // Design matrix D = B_w·A_cᵀ, with B_w the weighted targets.
    var design = Matrix3.zero
    for k in 0..<count {
      let b = targets[base + k] * sqrtWeights[k]
      let c = centeredWeightedSources[k]
      design.column0 += b * c.x
      design.column1 += b * c.y
      design.column2 += b * c.z
    }
    guard design.isFinite, design.frobeniusNorm > Self.epsilon, let svd = JacobiSVD3(design) else { return nil }

    // R = U·Vᵀ, with U's last column (smallest singular value) negated if that is what it
    // takes to make R a rotation rather than a reflection.
    var postrotation = svd.u
    let prerotation = svd.v.transposed
    if postrotation.determinant * prerotation.determinant < 0 { postrotation.column2 = -postrotation.column2 }
    let rotation = postrotation * prerotation

    // Optimal scale: Σ (R·A_c) ⊙ B_w / Σ A_c ⊙ A_w.
    var numerator: Float = 0
    for k in 0..<count {
      numerator += (rotation * centeredWeightedSources[k] * (targets[base + k] * sqrtWeights[k])).sum()
    }
    let scale = numerator / scaleDenominator
    guard scale > Self.epsilon, scale.isFinite else { return nil }
    let rotationAndScale = scale * rotation

    // Translation: Σ √wᵢ·(B_w,i − s·R·A_w,i) / W.
    var translation = SIMD3<Float>.zero
    for k in 0..<count {
      let difference = targets[base + k] * sqrtWeights[k] - rotationAndScale * weightedSources[k]
      translation += difference * sqrtWeights[k]
    }
    translation /= totalWeight
    guard translation.x.isFinite, translation.y.isFinite, translation.z.isFinite else { return nil }
    return Solution(rotationAndScale: rotationAndScale, translation: translation)
  }
}
