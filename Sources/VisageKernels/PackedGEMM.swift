/// A GEMM whose right-hand matrix is a constant, packed once into 16-column panels.
///
/// C[m×n] = A[m×k] · Bᵀ with B given N×K (an OHWI filter). Each panel holds K rows of 16
/// consecutive output channels (zero-padded past N), so the micro-kernel streams one panel
/// while eight rows of A are broadcast against it. Every output is summed in k order with a
/// multiply then an add, exactly like the reference convolution, so results match it to the
/// bit wherever the compiler does not contract the two into a fused multiply-add.
public final class PackedGEMM: @unchecked Sendable {
  /// Output columns.
  public let n: Int
  /// Reduction length.
  public let k: Int
  private let panels: UnsafeMutablePointer<Float>
  private var panelCount: Int { (n + 15) / 16 }

  /// Packs `b` (N×K row-major, row stride `ldb`).
  public init(b: UnsafePointer<Float>, n: Int, k: Int, ldb: Int) {
    self.n = n
    self.k = k
    let count = max(1, (n + 15) / 16 * 16 * k)
    panels = .allocate(capacity: count)
    panels.initialize(repeating: 0, count: count)
    for column in 0..<n {
      let panel = panels + (column / 16) * 16 * k
      for p in 0..<k { panel[p * 16 + column % 16] = b[column * ldb + p] }
    }
  }

  deinit { panels.deallocate() }

  /// Computes `c[m×n] = a[m×k] · Bᵀ`, overwriting `c` (row stride `ldc`).
  public func multiply(m: Int, a: UnsafePointer<Float>, lda: Int, c: UnsafeMutablePointer<Float>, ldc: Int) {
    // Rows outer, panels inner: eight rows of A stay in L1 while every panel passes by, and
    // the packed weights (at most a few hundred KB here) stay in L2.
    var row = 0
    while row + 8 <= m {
      for p in 0..<panelCount {
        let column = p * 16
        block8(a + row * lda, lda, UnsafePointer(panels + p * 16 * k), c + row * ldc + column, ldc, min(16, n - column))
      }
      row += 8
    }
    while row < m {
      for p in 0..<panelCount {
        let column = p * 16
        block1(a + row * lda, UnsafePointer(panels + p * 16 * k), c + row * ldc + column, min(16, n - column))
      }
      row += 1
    }
  }

  @inline(__always)
  private func block8(
    _ a: UnsafePointer<Float>, _ lda: Int, _ panel: UnsafePointer<Float>,
    _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>(), c5 = SIMD16<Float>(), c6 = SIMD16<Float>(), c7 = SIMD16<Float>()
    for p in 0..<k {
      let w = UnsafeRawPointer(panel + p * 16).loadUnaligned(as: SIMD16<Float>.self)
      c0 = w * SIMD16(repeating: a[p]) + c0
      c1 = w * SIMD16(repeating: a[lda + p]) + c1
      c2 = w * SIMD16(repeating: a[2 * lda + p]) + c2
      c3 = w * SIMD16(repeating: a[3 * lda + p]) + c3
      c4 = w * SIMD16(repeating: a[4 * lda + p]) + c4
      c5 = w * SIMD16(repeating: a[5 * lda + p]) + c5
      c6 = w * SIMD16(repeating: a[6 * lda + p]) + c6
      c7 = w * SIMD16(repeating: a[7 * lda + p]) + c7
    }
    store(c0, c, width)
    store(c1, c + ldc, width)
    store(c2, c + 2 * ldc, width)
    store(c3, c + 3 * ldc, width)
    store(c4, c + 4 * ldc, width)
    store(c5, c + 5 * ldc, width)
    store(c6, c + 6 * ldc, width)
    store(c7, c + 7 * ldc, width)
  }

  @inline(__always)
  private func block1(
    _ a: UnsafePointer<Float>, _ panel: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
    _ width: Int
  ) {
    var acc = SIMD16<Float>()
    for p in 0..<k {
      acc = UnsafeRawPointer(panel + p * 16).loadUnaligned(as: SIMD16<Float>.self) * SIMD16(repeating: a[p]) + acc
    }
    store(acc, c, width)
  }

  @inline(__always)
  private func store(_ v: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, _ width: Int) {
    if width == 16 {
      UnsafeMutableRawPointer(c).storeBytes(of: v, as: SIMD16<Float>.self)
    } else {
      for i in 0..<width { c[i] = v[i] }
    }
  }
}
