import CVisageISA

/// The left-packed GEMM's entry point in this copy of the micro-kernels: rows of
/// `c[m×n] = clamp(A · x + bias (+ residual))` for the 8-row panels `firstPanel..<endPanel`
/// of the weights `LeftPackedGEMM` packed at plan time (see its documentation for the layout).
public func leftPackedGEMM(
  _ weights: VisageLeftPackedWeights, n: Int, x: UnsafePointer<Float>, ldx: Int, c: UnsafeMutablePointer<Float>,
  ldc: Int, residual: UnsafePointer<Float>?, panels: Range<Int>
) {
  LeftPackedGEMMKernel(weights).multiply(n: n, x: x, ldx: ldx, c: c, ldc: ldc, residual: residual, panels: panels)
}

/// The left-packed GEMM's loops. Every output is summed in k order (each step a multiply then
/// an add, or one fused multiply-add in the `VISAGE_FMA` copies), then gets its row's bias,
/// the residual and the clamp, as the reference orders them.
struct LeftPackedGEMMKernel {
  let m: Int
  let k: Int
  let panels: UnsafePointer<Float>
  let bias: UnsafePointer<Float>
  let clamp: Clamped
  let tileRows: Int

  @inline(__always)
  init(_ w: VisageLeftPackedWeights) {
    m = w.m
    k = w.k
    panels = w.panels
    bias = w.bias
    tileRows = w.tileRows
    clamp = Clamped(lower: w.lower, upper: w.upper)
  }

  func multiply(
    n: Int, x: UnsafePointer<Float>, ldx: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
    residual: UnsafePointer<Float>?, panels part: Range<Int>
  ) {
    withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 16) { tile in
      let tile = tile.baseAddress!
      for p in part {
        let row = p * 8
        let rows = min(8, m - row)
        let panel = panels + p * 8 * k
        if tileRows < 8 {
          multiplyShortTiles(
            row, rows, n: n, panel: panel, x: x, ldx: ldx, c: c, ldc: ldc, residual: residual, tile: tile)
          continue
        }
        // Fewer than four rows: one row at a time, four vectors wide, is cheaper than a
        // padded eight-row tile (its time is the k-long chain of adds, not the arithmetic).
        if rows < 4 {
          for r in 0..<rows {
            multiplyRow(
              row + r, n: n, weights: panel + r, x: x, ldx: ldx, c: c, ldc: ldc, residual: residual, tile: tile)
          }
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
              finish(
                tile[q / 2 + r], row: row + r, c + (row + r) * ldc + column + q,
                residual.map { $0 + (row + r) * ldc + column + q })
            }
          }
          column += width
        }
      }
    }
  }

  /// One panel's `rows` rows of C from `row` on, `tileRows` (4 or 2) at a time while that
  /// many remain, then two, then one: 16 columns at a time, so that the accumulators fit
  /// AVX2's or SSE's sixteen registers.
  private func multiplyShortTiles(
    _ row: Int, _ rows: Int, n: Int, panel: UnsafePointer<Float>, x: UnsafePointer<Float>, ldx: Int,
    c: UnsafeMutablePointer<Float>, ldc: Int, residual: UnsafePointer<Float>?, tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var r = 0
    while r < rows {
      let height = rows - r >= tileRows ? tileRows : min(2, rows - r)
      if height == 1 {
        multiplyRow(row + r, n: n, weights: panel + r, x: x, ldx: ldx, c: c, ldc: ldc, residual: residual, tile: tile)
      } else {
        for column in stride(from: 0, to: n, by: 16) {
          if height == 4 {
            Self.accumulate4(panel + r, k, x + column, ldx, tile)
          } else {
            Self.accumulate2(panel + r, k, x + column, ldx, tile)
          }
          for t in 0..<height {
            let offset = (row + r + t) * ldc + column
            finish(tile[t], row: row + r + t, c + offset, residual.map { $0 + offset })
          }
        }
      }
      r += height
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
  private func finish(
    _ sum: SIMD16<Float>, row: Int, _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>?
  ) {
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
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>()
    var c5 = SIMD16<Float>()
    var c6 = SIMD16<Float>()
    var c7 = SIMD16<Float>()
    var d0 = SIMD16<Float>()
    var d1 = SIMD16<Float>()
    var d2 = SIMD16<Float>()
    var d3 = SIMD16<Float>()
    var d4 = SIMD16<Float>()
    var d5 = SIMD16<Float>()
    var d6 = SIMD16<Float>()
    var d7 = SIMD16<Float>()
    var w = panel
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      let v = row.load(SIMD16<Float>.self, at: 16)
      var a = SIMD16<Float>(repeating: w[0])
      c0 = multiplyAdd(u, a, c0)
      d0 = multiplyAdd(v, a, d0)
      a = SIMD16<Float>(repeating: w[1])
      c1 = multiplyAdd(u, a, c1)
      d1 = multiplyAdd(v, a, d1)
      a = SIMD16<Float>(repeating: w[2])
      c2 = multiplyAdd(u, a, c2)
      d2 = multiplyAdd(v, a, d2)
      a = SIMD16<Float>(repeating: w[3])
      c3 = multiplyAdd(u, a, c3)
      d3 = multiplyAdd(v, a, d3)
      a = SIMD16<Float>(repeating: w[4])
      c4 = multiplyAdd(u, a, c4)
      d4 = multiplyAdd(v, a, d4)
      a = SIMD16<Float>(repeating: w[5])
      c5 = multiplyAdd(u, a, c5)
      d5 = multiplyAdd(v, a, d5)
      a = SIMD16<Float>(repeating: w[6])
      c6 = multiplyAdd(u, a, c6)
      d6 = multiplyAdd(v, a, d6)
      a = SIMD16<Float>(repeating: w[7])
      c7 = multiplyAdd(u, a, c7)
      d7 = multiplyAdd(v, a, d7)
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
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>()
    var c5 = SIMD16<Float>()
    var c6 = SIMD16<Float>()
    var c7 = SIMD16<Float>()
    var w = panel
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      c0 = multiplyAdd(u, SIMD16(repeating: w[0]), c0)
      c1 = multiplyAdd(u, SIMD16(repeating: w[1]), c1)
      c2 = multiplyAdd(u, SIMD16(repeating: w[2]), c2)
      c3 = multiplyAdd(u, SIMD16(repeating: w[3]), c3)
      c4 = multiplyAdd(u, SIMD16(repeating: w[4]), c4)
      c5 = multiplyAdd(u, SIMD16(repeating: w[5]), c5)
      c6 = multiplyAdd(u, SIMD16(repeating: w[6]), c6)
      c7 = multiplyAdd(u, SIMD16(repeating: w[7]), c7)
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

  /// Four rows of a panel (from `weights`, each k step's eight weights 8 floats apart) times
  /// 16 columns of X, into `tile[0..<4]`.
  @inline(never)
  static func accumulate4(
    _ weights: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var w = weights
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      c0 = multiplyAdd(u, SIMD16(repeating: w[0]), c0)
      c1 = multiplyAdd(u, SIMD16(repeating: w[1]), c1)
      c2 = multiplyAdd(u, SIMD16(repeating: w[2]), c2)
      c3 = multiplyAdd(u, SIMD16(repeating: w[3]), c3)
      w += 8
      row += ldx
    }
    tile[0] = c0
    tile[1] = c1
    tile[2] = c2
    tile[3] = c3
  }

  /// Two rows of a panel times 16 columns of X, into `tile[0..<2]`.
  @inline(never)
  static func accumulate2(
    _ weights: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var w = weights
    var row = x
    for _ in 0..<k {
      let u = row.load(SIMD16<Float>.self, at: 0)
      c0 = multiplyAdd(u, SIMD16(repeating: w[0]), c0)
      c1 = multiplyAdd(u, SIMD16(repeating: w[1]), c1)
      w += 8
      row += ldx
    }
    tile[0] = c0
    tile[1] = c1
  }

  /// One row (its weights every 8 floats) times 64 columns of X, into `tile[0..<4]`.
  @inline(never)
  static func accumulateRow4(
    _ weights: UnsafePointer<Float>, _ k: Int, _ x: UnsafePointer<Float>, _ ldx: Int,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var w = weights
    var row = x
    for _ in 0..<k {
      let a = SIMD16<Float>(repeating: w[0])
      c0 = multiplyAdd(row.load(SIMD16<Float>.self, at: 0), a, c0)
      c1 = multiplyAdd(row.load(SIMD16<Float>.self, at: 16), a, c1)
      c2 = multiplyAdd(row.load(SIMD16<Float>.self, at: 32), a, c2)
      c3 = multiplyAdd(row.load(SIMD16<Float>.self, at: 48), a, c3)
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
      sum = multiplyAdd(row.load(SIMD16<Float>.self, at: 0), SIMD16(repeating: w[0]), sum)
      w += 8
      row += ldx
    }
    return sum
  }
}
