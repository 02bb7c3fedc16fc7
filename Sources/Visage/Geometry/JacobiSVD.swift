/// The singular value decomposition M = U·diag(σ)·Vᵀ of a 3×3 float matrix by two-sided Jacobi
/// rotations.
///
/// MediaPipe's Procrustes solver uses Eigen's `JacobiSVD<Matrix3f>`; this follows the same
/// sequence of steps (scale by the largest entry, sweep the (p, q) pairs (1,0), (2,0), (2,1)
/// with a 2×2 SVD each until every off-diagonal entry is below 2ε times the largest diagonal
/// entry, make the diagonal positive, sort descending) in Float, so the rotation it yields
/// rounds the way MediaPipe's does.
struct JacobiSVD3 {
  /// Left singular vectors, one per column.
  var u: Matrix3
  /// Non-negative, in descending order.
  var singularValues: SIMD3<Float>
  /// Right singular vectors, one per column.
  var v: Matrix3

  /// A Givens rotation [[c, s], [−s, c]], as Eigen's `JacobiRotation` stores it.
  private struct PlaneRotation {
    var c: Float
    var s: Float

    static let identity = PlaneRotation(c: 1, s: 0)

    var transposed: PlaneRotation { PlaneRotation(c: c, s: -s) }

    static func * (lhs: PlaneRotation, rhs: PlaneRotation) -> PlaneRotation {
      PlaneRotation(c: lhs.c * rhs.c - lhs.s * rhs.s, s: lhs.c * rhs.s + lhs.s * rhs.c)
    }

    /// The rotation that diagonalizes the symmetric 2×2 matrix [[x, y], [y, z]] (Eigen's
    /// `makeJacobi`).
    init(diagonalizing x: Float, _ y: Float, _ z: Float) {
      let denominator = 2 * abs(y)
      guard denominator >= Float.leastNormalMagnitude else {
        self = .identity
        return
      }
      let tau = (x - z) / denominator
      let w = (tau * tau + 1).squareRoot()
      let t = tau > 0 ? 1 / (tau + w) : 1 / (tau - w)
      let signT: Float = t > 0 ? 1 : -1
      let n = 1 / (t * t + 1).squareRoot()
      s = -signT * (y / abs(y)) * abs(t) * n
      c = n
    }

    init(c: Float, s: Float) {
      self.c = c
      self.s = s
    }

    /// (c·x + s·y, −s·x + c·y): Eigen's `apply_rotation_in_the_plane`.
    func rotate(_ x: Float, _ y: Float) -> (Float, Float) {
      (c * x + s * y, -s * x + c * y)
    }

    /// Rotates rows `p` and `q` of `matrix` (Eigen's `applyOnTheLeft` with this rotation)
    /// when `rows` is true, else its columns `p` and `q` (`applyOnTheRight` with the transpose).
    func apply(to matrix: inout Matrix3, rows: Bool, _ p: Int, _ q: Int) {
      for lane in 0..<3 {
        let (rp, cp, rq, cq) = rows ? (p, lane, q, lane) : (lane, p, lane, q)
        (matrix[rp, cp], matrix[rq, cq]) = rotate(matrix[rp, cp], matrix[rq, cq])
      }
    }
  }

  /// Eigen caps nothing, but a cap keeps hostile input from spinning; well-scaled 3×3 matrices
  /// converge in a handful of sweeps.
  private static let maxSweeps = 100

  /// Decomposes `matrix`; nil if it has a NaN or infinite entry (Eigen reports `InvalidInput`).
  init?(_ matrix: Matrix3) {
    // Scaling by the largest entry keeps the 2×2 steps clear of overflow and underflow.
    var scale = matrix.maxMagnitude
    guard scale.isFinite else { return nil }
    if scale == 0 { scale = 1 }
    var work = Matrix3.zero
    for column in 0..<3 {
      for row in 0..<3 { work[row, column] = matrix[row, column] / scale }
    }
    var u = Matrix3.identity
    var v = Matrix3.identity

    // Stopping at 2ε rather than ε: the last bit can take many sweeps and only adds rounding
    // to U and V. The denormal floor keeps a zero matrix from looping.
    let precision = 2 * Float.ulpOfOne
    var maxDiagonal = max(abs(work[0, 0]), abs(work[1, 1]), abs(work[2, 2]))
    var finished = false
    var sweeps = 0
    while !finished, sweeps < Self.maxSweeps {
      finished = true
      sweeps += 1
      for p in 1..<3 {
        for q in 0..<p {
          let threshold = max(Float.leastNormalMagnitude, precision * maxDiagonal)
          guard abs(work[p, q]) > threshold || abs(work[q, p]) > threshold else { continue }
          finished = false
          let (left, right) = Self.twoByTwoSVD(work, p, q)
          // work ← J_leftᵀ·work·J_right, U ← U·J_left, V ← V·J_right.
          left.apply(to: &work, rows: true, p, q)
          left.apply(to: &u, rows: false, p, q)
          right.transposed.apply(to: &work, rows: false, p, q)
          right.transposed.apply(to: &v, rows: false, p, q)
          maxDiagonal = max(maxDiagonal, abs(work[p, p]), abs(work[q, q]))
        }
      }
    }

    // The diagonal now holds the singular values up to sign; move the signs into U.
    var values = SIMD3<Float>.zero
    for i in 0..<3 {
      let a = work[i, i]
      values[i] = abs(a)
      if a < 0 { u[column: i] = -u[column: i] }
    }
    values *= scale

    // Selection sort, descending, moving the singular vectors along.
    for i in 0..<3 {
      var position = i
      for j in (i + 1)..<3 where values[j] > values[position] { position = j }
      if values[position] == 0 { break }
      if position != i {
        values.swapAt(i, position)
        let (ui, vi) = (u[column: i], v[column: i])
        u[column: i] = u[column: position]
        u[column: position] = ui
        v[column: i] = v[column: position]
        v[column: position] = vi
      }
    }
    self.u = u
    self.singularValues = values
    self.v = v
  }

  /// The left and right rotations that diagonalize the 2×2 block at rows and columns p, q
  /// (Eigen's `real_2x2_jacobi_svd`): first a rotation that makes the block symmetric, then
  /// the symmetric Jacobi rotation.
  private static func twoByTwoSVD(_ work: Matrix3, _ p: Int, _ q: Int) -> (left: PlaneRotation, right: PlaneRotation) {
    var m00 = work[p, p]
    var m01 = work[p, q]
    var m10 = work[q, p]
    var m11 = work[q, q]
    let t = m00 + m11
    let d = m10 - m01
    var symmetrize = PlaneRotation.identity
    if abs(d) >= Float.leastNormalMagnitude {
      let ratio = t / d
      let root = (1 + ratio * ratio).squareRoot()
      symmetrize = PlaneRotation(c: ratio / root, s: 1 / root)
    }
    (m00, m10) = symmetrize.rotate(m00, m10)
    (m01, m11) = symmetrize.rotate(m01, m11)
    let right = PlaneRotation(diagonalizing: m00, m01, m11)
    return (symmetrize * right.transposed, right)
  }
}

extension SIMD3 {
  fileprivate mutating func swapAt(_ i: Int, _ j: Int) {
    let value = self[i]
    self[i] = self[j]
    self[j] = value
  }
}
