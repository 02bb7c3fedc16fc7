/// A 3×3 float matrix for the Procrustes solver, held as three columns (Eigen's layout, so the
/// solver's steps read like MediaPipe's).
///
/// Plain stored columns rather than an array, so the per-frame solve allocates nothing.
struct Matrix3: Equatable, Sendable {
  var column0: SIMD3<Float>
  var column1: SIMD3<Float>
  var column2: SIMD3<Float>

  init(column0: SIMD3<Float>, column1: SIMD3<Float>, column2: SIMD3<Float>) {
    self.column0 = column0
    self.column1 = column1
    self.column2 = column2
  }

  static let zero = Matrix3(column0: .zero, column1: .zero, column2: .zero)
  static let identity = Matrix3(column0: [1, 0, 0], column1: [0, 1, 0], column2: [0, 0, 1])

  /// Column `index` (0, 1 or 2).
  subscript(column index: Int) -> SIMD3<Float> {
    get {
      switch index {
      case 0: column0
      case 1: column1
      default: column2
      }
    }
    set {
      switch index {
      case 0: column0 = newValue
      case 1: column1 = newValue
      default: column2 = newValue
      }
    }
  }

  /// The entry at `row`, `column`.
  subscript(row: Int, column: Int) -> Float {
    get { self[column: column][row] }
    set { self[column: column][row] = newValue }
  }

  var transposed: Matrix3 {
    Matrix3(
      column0: [column0.x, column1.x, column2.x],
      column1: [column0.y, column1.y, column2.y],
      column2: [column0.z, column1.z, column2.z])
  }

  /// Expansion along the first column (the sign is all the solver needs).
  var determinant: Float {
    let m = self
    return m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
      - m[1, 0] * (m[0, 1] * m[2, 2] - m[0, 2] * m[2, 1])
      + m[2, 0] * (m[0, 1] * m[1, 2] - m[0, 2] * m[1, 1])
  }

  /// √(sum of squared entries).
  var frobeniusNorm: Float {
    ((column0 * column0).sum() + (column1 * column1).sum() + (column2 * column2).sum()).squareRoot()
  }

  /// The largest |entry|; NaN if any entry is NaN.
  var maxMagnitude: Float {
    var result: Float = 0
    for column in 0..<3 {
      for row in 0..<3 {
        let value = abs(self[row, column])
        if value.isNaN { return .nan }
        result = max(result, value)
      }
    }
    return result
  }

  static func * (lhs: Matrix3, rhs: SIMD3<Float>) -> SIMD3<Float> {
    lhs.column0 * rhs.x + lhs.column1 * rhs.y + lhs.column2 * rhs.z
  }

  static func * (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
    Matrix3(column0: lhs * rhs.column0, column1: lhs * rhs.column1, column2: lhs * rhs.column2)
  }

  static func * (lhs: Float, rhs: Matrix3) -> Matrix3 {
    Matrix3(column0: lhs * rhs.column0, column1: lhs * rhs.column1, column2: lhs * rhs.column2)
  }

  /// Whether every entry is finite.
  var isFinite: Bool {
    for column in 0..<3 {
      for row in 0..<3 where !self[row, column].isFinite { return false }
    }
    return true
  }
}
