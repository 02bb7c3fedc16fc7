/// A GEMM whose left-hand matrix is a constant, packed once into 8-row panels:
/// C[m×n] = A[m×k] · X[k×n], with n a multiple of 16.
///
/// This is `PackedGEMM` with the roles swapped, for a 1×1 convolution applied across the
/// rows of a matrix instead of its channels (the blendshapes model's token mixing, which
/// TFLite spells TRANSPOSE → CONV_2D → TRANSPOSE). Computed this way the transposes go
/// away, X's rows are read in place as 16-lane vectors, and an output count like 97 costs
/// one short row panel instead of a 16-column panel that is almost all padding.
///
/// Every output is summed in k order with a multiply then an add, then gets its row's bias,
/// an optional residual and the clamp, exactly as the reference convolution orders them, so
/// results match `reference` to the bit (where the compiler does not contract the multiply
/// and add into a fused multiply-add).
public final class LeftPackedGEMM: @unchecked Sendable {
  /// Output rows.
  public let m: Int
  /// Reduction length.
  public let k: Int
  /// Panel p holds rows 8p..<8p+8 of A column by column (`panel[j·8 + r] = A[8p + r][j]`),
  /// zero past row m, so one k step's eight weights share a cache line.
  private let panels: UnsafeMutablePointer<Float>
  /// The bias, zero-padded to whole panels.
  private let bias: UnsafeMutablePointer<Float>
  private let clamp: Clamped

  /// Panels of eight rows of C: the unit `multiply` splits work by.
  public var panelCount: Int { (m + 7) / 8 }

  /// Packs `a` (m×k row-major, row stride `lda`), the per-row `bias` (zeros when nil) and
  /// the `clamp`.
  public init(a: UnsafePointer<Float>, m: Int, k: Int, lda: Int, bias: UnsafePointer<Float>? = nil, clamp: Clamp = .none) {
    precondition(m > 0 && k > 0 && lda >= k)
    self.m = m
    self.k = k
    self.clamp = Clamped(clamp)
    let rows = (m + 7) / 8 * 8
    panels = CacheAligned.allocate(Float.self, count: rows * k)
    panels.initialize(repeating: 0, count: rows * k)
    for row in 0..<m {
      let panel = panels + (row / 8) * 8 * k
      for j in 0..<k { panel[j * 8 + row % 8] = a[row * lda + j] }
    }
    self.bias = CacheAligned.allocate(Float.self, count: rows)
    self.bias.initialize(repeating: 0, count: rows)
    if let bias { self.bias.update(from: bias, count: m) }
  }

  deinit {
    panels.deallocate()
    bias.deallocate()
  }

  /// Computes rows of `c[m×n] = clamp(A · x + bias (+ residual))`, overwriting them.
  ///
  /// `x` is k×n with row stride `ldx`; `c` and `residual` (when given) are m×n with row
  /// stride `ldc`. `panels` limits the work to those 8-row panels (all by default), so
  /// threads can share it.
  public func multiply(
    n: Int, x: UnsafePointer<Float>, ldx: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
    residual: UnsafePointer<Float>? = nil, panels part: Range<Int>? = nil
  ) {
    precondition(n % 16 == 0 && ldx >= n && ldc >= n)
    withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 16) { tile in
      let tile = tile.baseAddress!
      for p in part ?? 0..<panelCount {
        let row = p * 8
        let rows = min(8, m - row)
        let panel = UnsafePointer(panels + p * 8 * k)
        // Fewer than four rows: one row at a time, four vectors wide, is cheaper than a
        // padded eight-row tile (its time is the k-long chain of adds, not the arithmetic).
        if rows < 4 {
          for r in 0..<rows { multiplyRow(row + r, n: n, weights: panel + r, x: x, ldx: ldx, c: c, ldc: ldc, residual: residual, tile: tile) }
          continue
        }
        var column = 0
        while column < n {
          let width = min(32, n - column)
          if width == 32 {
            Self.accumulate8x2(panel, k, x + column, ldx, tile)
          } else {
            Self.accumulate8(panel, k, x + column, ldx, tile)
          }
          for q in stride(from: 0, to: width, by: 16) {
            for r in 0..<rows {
              finish(tile[q / 2 + r], row: row + r, c + (row + r) * ldc + column + q, residual.map { $0 + (row + r) * ldc + column + q })
            }
          }
          column += width
        }
      }
    }
  }

  /// One row of C: 64 columns at a time, then 16.
  private func multiplyRow(
    _ row: Int, n: Int, weights: UnsafePointer<Float>, x: UnsafePointer<Float>, ldx: Int,
    c: UnsafeMutablePointer<Float>, ldc: Int, residual: UnsafePointer<Float>?, tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var column = 0
    while column < n {
      let vectors = n - column >= 64 ? 4 : 1
      if vectors == 4 {
        Self.accumulateRow4(weights, k, x + column, ldx, tile)
      } else {
        tile[0] = Self.accumulateRow(weights, k, x + column, ldx)
      }
      for v in 0..<vectors {
        let offset = row * ldc + column + 16 * v
        finish(tile[v], row: row, c + offset, residual.map { $0 + offset })
      }
      column += 16 * vectors
    }
  }

  /// Bias, residual, clamp, store: in the order separate operators apply them.
  @inline(__always)
  private func finish(_ sum: SIMD16<Float>, row: Int, _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>?) {
    var v = sum + SIMD16(repeating: bias[row])
    if let residual { v += residual.load(SIMD16<Float>.self, at: 0) }
    out.store(clamp(v, panel: 0), at: 0)
  }

  /// Eight rows of a panel times 32 columns of X, into `tile[0..<8]` and `tile[8..<16]`.
  @inline(never)
  static func accumulate8x2(
    _ panel: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>(), c5 = SIMD16<Float>(), c6 = SIMD16<Float>(), c7 = SIMD16<Float>()
    var d0 = SIMD16<Float>(), d1 = SIMD16<Float>(), d2 = SIMD16<Float>(), d3 = SIMD16<Float>()
    var d4 = SIMD16<Float>(), d5 = SIMD16<Float>(), d6 = SIMD16<Float>(), d7 = SIMD16<Float>()
    var w = panel
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      let v = row.load(SIMD16<Float>.self, at: 16)
      var a = SIMD16<Float>(repeating: w[0])
      c0 = u * a + c0
      d0 = v * a + d0
      a = SIMD16<Float>(repeating: w[1])
      c1 = u * a + c1
      d1 = v * a + d1
      a = SIMD16<Float>(repeating: w[2])
      c2 = u * a + c2
      d2 = v * a + d2
      a = SIMD16<Float>(repeating: w[3])
      c3 = u * a + c3
      d3 = v * a + d3
      a = SIMD16<Float>(repeating: w[4])
      c4 = u * a + c4
      d4 = v * a + d4
      a = SIMD16<Float>(repeating: w[5])
      c5 = u * a + c5
      d5 = v * a + d5
      a = SIMD16<Float>(repeating: w[6])
      c6 = u * a + c6
      d6 = v * a + d6
      a = SIMD16<Float>(repeating: w[7])
      c7 = u * a + c7
      d7 = v * a + d7
      w += 8
      row += ldx
    }
    tile[0] = c0
    tile[1] = c1
    tile[2] = c2
    tile[3] = c3
    tile[4] = c4
    tile[5] = c5
    tile[6] = c6
    tile[7] = c7
    tile[8] = d0
    tile[9] = d1
    tile[10] = d2
    tile[11] = d3
    tile[12] = d4
    tile[13] = d5
    tile[14] = d6
    tile[15] = d7
  }

  /// Eight rows of a panel times 16 columns of X, into `tile[0..<8]`.
  @inline(never)
  static func accumulate8(
    _ panel: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>(), c5 = SIMD16<Float>(), c6 = SIMD16<Float>(), c7 = SIMD16<Float>()
    var w = panel
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      c0 = u * SIMD16(repeating: w[0]) + c0
      c1 = u * SIMD16(repeating: w[1]) + c1
      c2 = u * SIMD16(repeating: w[2]) + c2
      c3 = u * SIMD16(repeating: w[3]) + c3
      c4 = u * SIMD16(repeating: w[4]) + c4
      c5 = u * SIMD16(repeating: w[5]) + c5
      c6 = u * SIMD16(repeating: w[6]) + c6
      c7 = u * SIMD16(repeating: w[7]) + c7
      w += 8
      row += ldx
    }
    tile[0] = c0
    tile[1] = c1
    tile[2] = c2
    tile[3] = c3
    tile[4] = c4
    tile[5] = c5
    tile[6] = c6
    tile[7] = c7
  }

  /// One row (its weights every 8 floats) times 64 columns of X, into `tile[0..<4]`.
  @inline(never)
  static func accumulateRow4(
    _ weights: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var w = weights
    var row = x
    for _ in 0..<k {
      let a = SIMD16<Float>(repeating: w[0])
      c0 = row.load(SIMD16<Float>.self, at: 0) * a + c0
      c1 = row.load(SIMD16<Float>.self, at: 16) * a + c1
      c2 = row.load(SIMD16<Float>.self, at: 32) * a + c2
      c3 = row.load(SIMD16<Float>.self, at: 48) * a + c3
      w += 8
      row += ldx
    }
    tile[0] = c0
    tile[1] = c1
    tile[2] = c2
    tile[3] = c3
  }

  /// One row (its weights every 8 floats) times 16 columns of X.
  @inline(never)
  static func accumulateRow(
    _ weights: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int
  ) -> SIMD16<Float> {
    var sum = SIMD16<Float>()
    var w = weights
    var row = x
    for _ in 0..<k {
      sum = row.load(SIMD16<Float>.self, at: 0) * SIMD16(repeating: w[0]) + sum
      w += 8
      row += ldx
    }
    return sum
  }

  /// The naive twin: `c = clamp(a · x + bias (+ residual))` loop by loop, summing in k order.
  public static func reference(
    m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, ldx: Int,
    bias: UnsafePointer<Float>?, clamp: Clamp, residual: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int
  ) {
    for i in 0..<m {
      for j in 0..<n {
        var total: Float = 0
        for p in 0..<k { total += x[p * ldx + j] * a[i * lda + p] }
        var value = total + (bias?[i] ?? 0)
        if let residual { value = value + residual[i * ldc + j] }
        c[i * ldc + j] = clamp(value)
      }
    }
  }
}
