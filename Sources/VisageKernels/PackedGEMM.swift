/// A GEMM whose right-hand matrix is a constant, packed once into 16-column panels.
///
/// C[m×n] = A[m×k] · Bᵀ with B given N×K (an OHWI filter). Each panel holds K rows of 16
/// consecutive output channels (zero-padded past N), so the micro-kernel streams one panel
/// while a few rows of A (see `tileRows`) are broadcast against it. Every output is summed in
/// k order with a multiply then an add, exactly like the reference convolution, so results
/// match it to the bit wherever the compiler does not contract the two into a fused
/// multiply-add.
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
  /// Rows of C per micro-kernel call (8, 4, 2 or 1).
  public let tileRows: Int

  /// Packs `b` (N×K row-major, row stride `ldb`) and the finish: `bias` (N values, zeros
  /// when nil), `clamp`, and per-column PReLU `slopes`. `tileRows` defaults to the height
  /// measured fastest on this build (`PackedGEMM.preferredTileRows`); any height gives the
  /// same results.
  public init(
    b: UnsafePointer<Float>, n: Int, k: Int, ldb: Int, bias: UnsafePointer<Float>? = nil,
    clamp: Clamp = .none, slopes: UnsafePointer<Float>? = nil, tileRows: Int? = nil
  ) {
    precondition(tileRows.map { [1, 2, 4, 8].contains($0) } ?? true)
    self.tileRows = tileRows ?? Self.preferredTileRows
    self.n = n
    self.k = k
    let count = max(1, (n + 15) / 16 * 16 * k)
    panels = CacheAligned.allocate(Float.self, count: count)
    panels.initialize(repeating: 0, count: count)
    for column in 0..<n {
      let panel = panels + (column / 16) * 16 * k
      for p in 0..<k { panel[p * 16 + column % 16] = b[column * ldb + p] }
    }
    let padded = (n + 15) / 16 * 16
    func copy(_ values: UnsafePointer<Float>?, padding: Float) -> UnsafeMutablePointer<Float> {
      let copy = CacheAligned.allocate(Float.self, count: padded)
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
    withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 16) { tile in
      let tile = tile.baseAddress!
      // Rows outer, panels inner: a tile's rows of A stay in L1 while every panel passes
      // by, and the packed weights (at most a few hundred KB here) stay in L2.
      var row = 0
      while row < m {
        let rows = min(tileRows, m - row)
        var column = 0
        while column < n {
          let x = a + row * lda
          let out = c + row * ldc
          column += rows == 8
            ? eightRows(x, lda, segments, length, out, ldc, column, residual?.rows(from: row), tile)
            : fewRows(rows, x, lda, segments, length, out, ldc, column, residual?.rows(from: row), tile)
        }
        row += rows
      }
    }
  }

  /// Eight rows of C from `column` on: one or two panels, finished inside the micro-kernel
  /// where the shapes allow it. Returns the columns done.
  private func eightRows(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int, _ residual: Residual?,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) -> Int {
    let panel = UnsafePointer(panels + column * k)
    let remaining = n - column
    let out = c + column
    let done: Int?
    if let slopes = finish.slopes {
      let activation = ClampedPReLU(finish.clamp, slopes: slopes, column: column, panels: remaining > 16 ? 2 : 1)
      done = finishedEightRows(a, lda, segments, length, panel, out, ldc, column, residual, activation)
    } else {
      done = finishedEightRows(a, lda, segments, length, panel, out, ldc, column, residual, Clamped(finish.clamp))
    }
    if let done { return done }
    if remaining > 16 {
      Self.accumulate8x2(a, lda, segments, length, panel, RawTile(tile: tile))
    } else {
      Self.accumulate8(a, lda, segments, length, panel, RawTile(tile: tile))
    }
    let width = min(32, remaining)
    for q in stride(from: 0, to: width, by: 16) {
      finish.store(
        tile + q / 2, rows: 8, column: column + q, width: min(16, width - q), out + q, ldc: ldc,
        residual: residual?.columns(row: 0, from: column + q))
    }
    return width
  }

  /// Eight rows of whole panels (32, 24, 16 or 8 columns) whose residual, if any, has all
  /// their columns: finished inside the micro-kernel. Returns the columns done, or nil
  /// when the shape needs the tile buffer.
  @inline(__always)
  private func finishedEightRows<Activation: TileActivation>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int,
    _ residual: Residual?, _ activation: Activation
  ) -> Int? {
    let remaining = n - column
    let extra = residual?.values.advanced(by: column)
    let residualStride = residual?.channels ?? 0
    func covered(_ count: Int) -> Bool { residual.map { $0.channels >= column + count } ?? true }
    // The second panel's bias only where there is one (the copy ends with the last panel).
    let first = finish.bias.load(SIMD16<Float>.self, at: column)
    let bias = (first, remaining > 16 ? finish.bias.load(SIMD16<Float>.self, at: column + 16) : first)
    if remaining >= 32 && covered(32) {
      let sink = FinishedTile(
        c: out, ldc: ldc, bias: bias, activation: activation, residual: extra, residualStride: residualStride)
      Self.accumulate8x2(a, lda, segments, length, panel, sink)
      return 32
    }
    if remaining == 24 && covered(24) {
      let sink = FinishedTileAndHalf(
        c: out, ldc: ldc, bias: (bias.0, bias.1.lowHalf), activation: activation, residual: extra,
        residualStride: residualStride)
      Self.accumulate8x2(a, lda, segments, length, panel, sink)
      return 24
    }
    if remaining >= 16 && covered(16) {
      let sink = FinishedTile(
        c: out, ldc: ldc, bias: bias, activation: activation, residual: extra, residualStride: residualStride)
      Self.accumulate8(a, lda, segments, length, panel, sink)
      return 16
    }
    if remaining == 8 && covered(8) {
      let sink = FinishedHalfPanel(
        c: out, ldc: ldc, bias: bias.0.lowHalf, activation: activation, residual: extra,
        residualStride: residualStride)
      Self.accumulate8(a, lda, segments, length, panel, sink)
      return 8
    }
    return nil
  }

  /// Fewer than eight rows of C (the tile height of builds without AVX-512, or the tail), one
  /// panel from `column` on. Whole tiles of whole panels are finished inside the micro-kernel
  /// as in `eightRows`; the rest goes through the tile buffer. Returns the columns done.
  private func fewRows(
    _ rows: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int, _ residual: Residual?,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) -> Int {
    let panel = UnsafePointer(panels + column * k)
    let width = min(16, n - column)
    if rows == tileRows && (rows == 4 || rows == 2) && width == 16
      && residual.map({ $0.channels >= column + 16 }) ?? true
    {
      if let slopes = finish.slopes {
        let activation = ClampedPReLU(finish.clamp, slopes: slopes, column: column, panels: 1)
        finishedFewRows(rows, a, lda, segments, length, panel, c + column, ldc, column, residual, activation)
      } else {
        finishedFewRows(rows, a, lda, segments, length, panel, c + column, ldc, column, residual, Clamped(finish.clamp))
      }
      return 16
    }
    Self.accumulate(rows, a, lda, segments, length, panel, tile)
    finish.store(
      tile, rows: rows, column: column, width: width, c + column, ldc: ldc,
      residual: residual?.columns(row: 0, from: column))
    return width
  }

  /// Four or two rows of one whole panel, finished inside the micro-kernel.
  @inline(__always)
  private func finishedFewRows<Activation: TileActivation>(
    _ rows: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int,
    _ residual: Residual?, _ activation: Activation
  ) {
    let bias = finish.bias.load(SIMD16<Float>.self, at: column)
    let sink = FinishedTile(
      c: out, ldc: ldc, bias: (bias, bias), activation: activation, residual: residual?.values.advanced(by: column),
      residualStride: residual?.channels ?? 0)
    if rows == 4 {
      Self.accumulate4(a, lda, segments, length, panel, sink)
    } else {
      Self.accumulate2(a, lda, segments, length, panel, sink)
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

    /// The residual from row `row` on.
    func rows(from row: Int) -> Residual { Residual(values + row * channels, channels: channels) }

    /// Where row `row`'s values for columns `column...` start, the distance between rows,
    /// and how many of the next 16 columns exist (0 to 16).
    func columns(row: Int, from column: Int) -> (values: UnsafePointer<Float>, stride: Int, count: Int) {
      (values + row * channels + column, channels, max(0, min(16, channels - column)))
    }
  }
}
