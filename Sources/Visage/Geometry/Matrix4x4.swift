/// A 4×4 single-precision matrix, such as a face's transformation matrix.
///
/// Entries are addressed as `matrix[row, column]` and stored row by row. A facial
/// transformation matrix maps points of MediaPipe's canonical face model (centimetres,
/// right-handed) into the camera's metric space: `[x', y', z', 1]ᵀ = M · [x, y, z, 1]ᵀ`, with
/// the last row `[0, 0, 0, 1]`. Graphics APIs that take column-major data (OpenGL, Metal's
/// `simd_float4x4` columns) want `columnMajor`.
public struct Matrix4x4: Sendable, Hashable, CustomStringConvertible {
  /// The 16 entries, row-major; a SIMD vector rather than an array so the value needs no
  /// heap storage.
  private var storage: SIMD16<Float>

  /// The all-zero matrix.
  public static let zero = Matrix4x4(storage: .zero)

  /// The identity matrix.
  public static let identity = Matrix4x4(rowMajor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

  private init(storage: SIMD16<Float>) {
    self.storage = storage
  }

  /// A matrix from 16 entries listed row by row.
  ///
  /// - Precondition: `rowMajor` has 16 elements.
  public init(rowMajor: [Float]) {
    precondition(rowMajor.count == 16, "a 4×4 matrix has 16 entries, not \(rowMajor.count)")
    storage = SIMD16(rowMajor)
  }

  /// A matrix from its four rows of four entries each.
  ///
  /// - Precondition: there are four rows of four entries.
  public init(rows: [[Float]]) {
    precondition(rows.count == 4 && rows.allSatisfy { $0.count == 4 }, "a 4×4 matrix has four rows of four entries")
    self.init(rowMajor: rows.flatMap { $0 })
  }

  /// The entry in `row` and `column`, both 0...3.
  public subscript(row: Int, column: Int) -> Float {
    get {
      precondition(
        (0..<4).contains(row) && (0..<4).contains(column), "index (\(row), \(column)) is outside a 4×4 matrix")
      return storage[row * 4 + column]
    }
    set {
      precondition(
        (0..<4).contains(row) && (0..<4).contains(column), "index (\(row), \(column)) is outside a 4×4 matrix")
      storage[row * 4 + column] = newValue
    }
  }

  /// The four rows, top to bottom (the layout MediaPipe's Python API returns).
  public var rows: [[Float]] {
    (0..<4).map { row in (0..<4).map { self[row, $0] } }
  }

  /// The 16 entries row by row.
  public var rowMajor: [Float] {
    (0..<16).map { storage[$0] }
  }

  /// The 16 entries column by column (the layout of MediaPipe's `MatrixData` proto, OpenGL
  /// and `simd_float4x4`).
  public var columnMajor: [Float] {
    (0..<16).map { storage[($0 % 4) * 4 + $0 / 4] }
  }

  /// The transpose.
  public var transposed: Matrix4x4 {
    Matrix4x4(rowMajor: columnMajor)
  }

  /// Four rows in brackets.
  public var description: String {
    "[" + rows.map { "[" + $0.map { "\($0)" }.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
  }
}
