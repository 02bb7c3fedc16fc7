/// A GEMM whose right-hand matrix is a constant, packed once into 16-column panels.
///
/// C[m×n] = A[m×k] · Bᵀ with B given N×K (an OHWI filter). Each panel holds K rows of 16
/// consecutive output channels (zero-padded past N), so the micro-kernel streams one panel
/// while eight rows of A are broadcast against it. Every output is summed in k order with a
/// multiply then an add, exactly like the reference convolution, so results match it to the
/// bit wherever the compiler does not contract the two into a fused multiply-add.
///
/// A row of A need not be contiguous: it may be `segments.count` runs of equal length at
/// the given offsets from the row's start. That lets a convolution read its patches straight
/// from a (padded) input image, one run per filter row, instead of copying them out first.
///
/// A convolution's finish (bias, an optional residual, clamp, optional PReLU) is applied to
/// the accumulators before they are stored, in the order separate operators would apply it,
/// so C is written once and never re-read (a separate pass measured 20% of the models' time).
public final class PackedGEMM: @unchecked Sendable {
  /// Output columns.
  public let n: Int
  /// Reduction length.
  public let k: Int
  private let panels: UnsafeMutablePointer<Float>
  private var panelCount: Int { (n + 15) / 16 }
  /// Bias and PReLU slopes padded to whole panels, so the finish loads them 16 at a time.
  private let bias: UnsafeMutablePointer<Float>
  private let slopes: UnsafeMutablePointer<Float>?
  private let finish: Finish

  /// Packs `b` (N×K row-major, row stride `ldb`) and the finish: `bias` (N values, zeros
  /// when nil), `clamp`, and per-column PReLU `slopes`.
  public init(
    b: UnsafePointer<Float>, n: Int, k: Int, ldb: Int, bias: UnsafePointer<Float>? = nil,
    clamp: Clamp = .none, slopes: UnsafePointer<Float>? = nil
  ) {
    self.n = n
    self.k = k
    let count = max(1, (n + 15) / 16 * 16 * k)
    panels = .allocate(capacity: count)
    panels.initialize(repeating: 0, count: count)
    for column in 0..<n {
      let panel = panels + (column / 16) * 16 * k
      for p in 0..<k { panel[p * 16 + column % 16] = b[column * ldb + p] }
    }
    let padded = (n + 15) / 16 * 16
    func copy(_ values: UnsafePointer<Float>?, padding: Float) -> UnsafeMutablePointer<Float> {
      let copy = UnsafeMutablePointer<Float>.allocate(capacity: max(padded, 1))
      copy.initialize(repeating: padding, count: max(padded, 1))
      if let values { copy.update(from: values, count: n) }
      return copy
    }
    self.bias = copy(bias, padding: 0)
    self.slopes = slopes.map { copy($0, padding: 1) }
    finish = Finish(bias: self.bias, slopes: self.slopes.map { UnsafePointer($0) }, clamp: clamp)
  }

  deinit {
    panels.deallocate()
    bias.deallocate()
    slopes?.deallocate()
  }

  /// Computes `c[m×n] = a[m×k] · Bᵀ` and finishes it, overwriting `c` (row stride `ldc`).
  ///
  /// Row `i` of A is the `segments.count` runs `a + i·lda + segments.offsets[s]`, each
  /// `k / segments.count` long (by default one run of k). With a `residual`, row `i` of it
  /// is added after the bias.
  public func multiply(
    m: Int, a: UnsafePointer<Float>, lda: Int, segments: Segments = .contiguous,
    c: UnsafeMutablePointer<Float>, ldc: Int, residual: Residual? = nil
  ) {
    precondition(segments.count > 0 && k % segments.count == 0)
    let length = k / segments.count
    withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 8) { tile in
      let tile = tile.baseAddress!
      // Rows outer, panels inner: eight rows of A stay in L1 while every panel passes by,
      // and the packed weights (at most a few hundred KB here) stay in L2.
      var row = 0
      while row < m {
        let rows = min(8, m - row)
        for p in 0..<panelCount {
          let column = p * 16
          let panel = UnsafePointer(panels + p * 16 * k)
          if rows == 8 {
            Self.accumulate8(a + row * lda, lda, segments, length, panel, tile)
          } else {
            for r in 0..<rows {
              tile[r] = Self.accumulate1(a + (row + r) * lda, segments, length, panel)
            }
          }
          for r in 0..<rows {
            let extra = residual.map { $0.columns(row: row + r, from: column) }
            Self.store(finish(tile[r], column, extra), c + (row + r) * ldc + column, min(16, n - column))
          }
        }
        row += rows
      }
    }
  }

  /// Where the runs of each row of A start, relative to the row's start.
  public struct Segments {
    /// Offsets of the runs, in order of k.
    public var offsets: UnsafePointer<Int>
    /// How many runs each row has.
    public var count: Int

    /// One run: A's rows are contiguous.
    public static var contiguous: Segments { Segments(offsets: zeroOffset, count: 1) }
    nonisolated(unsafe) private static let zeroOffset: UnsafePointer<Int> = {
      let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
      pointer.initialize(to: 0)
      return UnsafePointer(pointer)
    }()

    /// Runs starting at `offsets` (which must outlive every multiply that uses them).
    public init(offsets: UnsafePointer<Int>, count: Int) {
      self.offsets = offsets
      self.count = count
    }
  }

  /// A tensor added to C after the bias: `channels` values per row (channels ≤ n; the rest
  /// of each row gets +0, as after a zero PAD of the channels).
  public struct Residual {
    /// Row 0 of the residual.
    public var values: UnsafePointer<Float>
    /// Values per row.
    public var channels: Int

    /// A residual of `channels` values per row starting at `values`.
    public init(_ values: UnsafePointer<Float>, channels: Int) {
      self.values = values
      self.channels = channels
    }

    /// Where row `row`'s values for columns `column...` start, and how many of the next 16
    /// exist (0 to 16).
    func columns(row: Int, from column: Int) -> (values: UnsafePointer<Float>, count: Int) {
      (values + row * channels + column, max(0, min(16, channels - column)))
    }
  }

  /// Eight rows of A times one panel, written to `tile`. Only the sums happen here: with the
  /// finish in the same function, LLVM split this loop's vectors into pieces (measured 2x
  /// slower), so the caller finishes the tile.
  @inline(never)
  private static func accumulate8(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>(), c5 = SIMD16<Float>(), c6 = SIMD16<Float>(), c7 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      // One pointer per row, so the loop below only adds p (indexing x[r·lda + p] put eight
      // overflow-checked additions and stack reloads in it; measured 1.6x slower).
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda, x2 = x1 + lda, x3 = x2 + lda, x4 = x3 + lda
      let x5 = x4 + lda, x6 = x5 + lda, x7 = x6 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = wv * SIMD16(repeating: x0[p]) + c0
        c1 = wv * SIMD16(repeating: x1[p]) + c1
        c2 = wv * SIMD16(repeating: x2[p]) + c2
        c3 = wv * SIMD16(repeating: x3[p]) + c3
        c4 = wv * SIMD16(repeating: x4[p]) + c4
        c5 = wv * SIMD16(repeating: x5[p]) + c5
        c6 = wv * SIMD16(repeating: x6[p]) + c6
        c7 = wv * SIMD16(repeating: x7[p]) + c7
        w += 16
      }
    }
    (tile[0], tile[1], tile[2], tile[3]) = (c0, c1, c2, c3)
    (tile[4], tile[5], tile[6], tile[7]) = (c4, c5, c6, c7)
  }

  /// One row of A times one panel.
  @inline(never)
  private static func accumulate1(
    _ a: UnsafePointer<Float>, _ segments: Segments, _ length: Int, _ panel: UnsafePointer<Float>
  ) -> SIMD16<Float> {
    var acc = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x = a + segments.offsets[s]
      for p in 0..<length {
        acc = w.load(SIMD16<Float>.self, at: 0) * SIMD16(repeating: x[p]) + acc
        w += 16
      }
    }
    return acc
  }

  /// Stores the first `width` lanes: eight at once where they can, then one by one.
  @inline(__always)
  private static func store(_ v: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, _ width: Int) {
    if width == 16 {
      c.store(v, at: 0)
      return
    }
    var i = 0
    if width >= 8 {
      c.store(v.lowHalf, at: 0)
      i = 8
    }
    while i < width {
      c[i] = v[i]
      i += 1
    }
  }
}

/// Bias, residual (its first `count` lanes; +0 in the rest), clamp, PReLU: the order of the
/// separate operators. A struct rather than methods of `PackedGEMM`, which stayed calls.
private struct Finish {
  let bias: UnsafePointer<Float>
  let slopes: UnsafePointer<Float>?
  let clamp: Clamp

  @inline(__always)
  func callAsFunction(
    _ acc: SIMD16<Float>, _ column: Int, _ residual: (values: UnsafePointer<Float>, count: Int)?
  ) -> SIMD16<Float> {
    var v = acc + bias.load(SIMD16<Float>.self, at: column)
    if let residual {
      v = v + (residual.count == 16 ? residual.values.load(SIMD16<Float>.self, at: 0) : Self.partial(residual))
    }
    v = clamp(v)
    if let slopes { v = SIMD16.prelu(v, slopes.load(SIMD16<Float>.self, at: column)) }
    return v
  }

  /// The first `count` values (fewer than 16), then zeros: reads nothing past the residual.
  static func partial(_ residual: (values: UnsafePointer<Float>, count: Int)) -> SIMD16<Float> {
    var extra = SIMD16<Float>()
    var i = 0
    if residual.count >= 8 {
      extra.lowHalf = residual.values.load(SIMD8<Float>.self, at: 0)
      i = 8
    }
    while i < residual.count {
      extra[i] = residual.values[i]
      i += 1
    }
    return extra
  }
}
