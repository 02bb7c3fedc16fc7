import CVisageISA

/// The packed GEMM's entry point in this copy of the micro-kernels: `weights` is what
/// `PackedGEMM` packed at plan time, `operands` one call's matrices (see CVisageISA.h).
public func packedGEMM(_ weights: VisagePackedWeights, _ operands: VisageGEMMOperands) {
  let kernel = PackedGEMMKernel(weights)
  let residual = operands.residual.map { PackedGEMMKernel.Residual($0, channels: operands.residualChannels) }
  kernel.multiply(
    m: operands.m, a: operands.a, lda: operands.lda,
    segments: PackedGEMMKernel.Segments(offsets: operands.segmentOffsets, count: operands.segmentCount),
    c: operands.c, ldc: operands.ldc, residual: residual)
}

/// The packed GEMM's loops over tiles and panels (the packing and the documentation of the
/// layout are in VisageKernels' PackedGEMM.swift). Every output is summed in k order,
/// whatever the tile height, so every height gives the same bits; each step multiplies then
/// adds, or fuses the two in the copies built with `VISAGE_FMA` (`multiplyAdd`).
struct PackedGEMMKernel {
  let n: Int
  let k: Int
  let panels: UnsafePointer<Float>
  let finish: Finish
  let tileRows: Int

  @inline(__always)
  init(_ w: VisagePackedWeights) {
    n = w.n
    k = w.k
    panels = w.panels
    tileRows = w.tileRows
    finish = Finish(bias: w.bias, slopes: w.slopes, lower: w.lower, upper: w.upper)
  }

  /// Computes `c[m×n] = a[m×k] · Bᵀ` and finishes it, overwriting `c` (row stride `ldc`).
  ///
  /// Row `i` of A is the `segments.count` runs `a + i·lda + segments.offsets[s]`, each
  /// `k / segments.count` long (by default one run of k). With a `residual`, row `i` of it
  /// is added after the bias.
  func multiply(
    m: Int, a: UnsafePointer<Float>, lda: Int, segments: Segments,
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
        // Twelve-row tiles only where `fewRows` finishes them in the micro-kernel (a residual
        // of all eight columns, or none); the tile-buffer path would take them row by row.
        let rows = Self.height(
          m - row, tileRows: tileRows, halfPanel: n == 8 && residual.map({ $0.channels >= 8 }) ?? true)
        var column = 0
        while column < n {
          let x = a + row * lda
          let out = c + row * ldc
          // Panels wholly past the residual's channels get none (the +0 it adds there can
          // only turn a −0 into +0), so their finishes stay in the micro-kernel.
          let extra = residual.flatMap { $0.channels > column ? $0.rows(from: row) : nil }
          column +=
            rows == 8
            ? eightRows(x, lda, segments, length, out, ldc, column, extra, tile)
            : fewRows(rows, x, lda, segments, length, out, ldc, column, extra, tile)
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
    let panel = panels + column * k
    let remaining = n - column
    let out = c + column
    let done: Int?
    let pair = remaining > 16 ? 2 : 1
    // Each kind of activation is its own type, so each gets its own micro-kernel copy.
    switch (finish.slopes, finish.isUnbounded) {
    case (let slopes?, true):
      done = finishedEightRows(
        a, lda, segments, length, panel, out, ldc, column, residual, PReLU(slopes: slopes, column: column, panels: pair)
      )
    case (let slopes?, false):
      let activation = ClampedPReLU(
        lower: finish.lower, upper: finish.upper, slopes: slopes, column: column, panels: pair)
      done = finishedEightRows(a, lda, segments, length, panel, out, ldc, column, residual, activation)
    case (nil, true):
      done = finishedEightRows(a, lda, segments, length, panel, out, ldc, column, residual, Unclamped())
    case (nil, false):
      done = finishedEightRows(
        a, lda, segments, length, panel, out, ldc, column, residual, Clamped(lower: finish.lower, upper: finish.upper))
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

  /// Rows of C other than eight (the tile heights of builds without AVX-512, or the tail),
  /// one panel from `column` on. Six, four or two rows of a whole panel or of a half panel,
  /// and twelve of a GEMM that is one half panel, are finished inside the micro-kernel as in
  /// `eightRows`; the rest goes through the tile buffer. Returns the columns done.
  private func fewRows(
    _ rows: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int, _ residual: Residual?,
    _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) -> Int {
    let panel = panels + column * k
    let width = min(16, n - column)
    // A whole panel, or the half panel a channel count of 16k + 8 ends with (24, 56, 72 and
    // 88 in the detector).
    if ((rows == 6 || rows == 4 || rows == 2) && (width == 16 || width == 8) || rows == 12 && width == 8)
      && residual.map({ $0.channels >= column + width }) ?? true
    {
      let out = c + column
      switch (finish.slopes, finish.isUnbounded) {
      case (let slopes?, true):
        let activation = PReLU(slopes: slopes, column: column, panels: 1)
        finishedFewRows(rows, width, a, lda, segments, length, panel, out, ldc, column, residual, activation)
      case (let slopes?, false):
        let activation = ClampedPReLU(
          lower: finish.lower, upper: finish.upper, slopes: slopes, column: column, panels: 1)
        finishedFewRows(rows, width, a, lda, segments, length, panel, out, ldc, column, residual, activation)
      case (nil, true):
        finishedFewRows(rows, width, a, lda, segments, length, panel, out, ldc, column, residual, Unclamped())
      case (nil, false):
        let activation = Clamped(lower: finish.lower, upper: finish.upper)
        finishedFewRows(rows, width, a, lda, segments, length, panel, out, ldc, column, residual, activation)
      }
      return width
    }
    Self.accumulate(rows, a, lda, segments, length, panel, tile)
    finish.store(
      tile, rows: rows, column: column, width: width, c + column, ldc: ldc,
      residual: residual?.columns(row: 0, from: column))
    return width
  }

  /// Six, four or two rows of one panel, whole (`width` 16) or its first half (8), or twelve
  /// rows of a half panel, finished inside the micro-kernel.
  @inline(__always)
  private func finishedFewRows<Activation: TileActivation>(
    _ rows: Int, _ width: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ ldc: Int, _ column: Int,
    _ residual: Residual?, _ activation: Activation
  ) {
    let bias = finish.bias.load(SIMD16<Float>.self, at: column)
    let (extra, stride) = (residual?.values.advanced(by: column), residual?.channels ?? 0)
    // One dispatch on the height for either sink; six rows of a half panel have a kernel of
    // their own, eight lanes wide.
    @inline(__always)
    func run<Sink: TileSink>(_ sink: Sink, halfPanel: Bool) {
      precondition(rows != 12 || halfPanel, "twelve-row tiles are for half panels only")
      if rows == 12 && halfPanel {
        Self.accumulate12Half(a, lda, segments, length, panel, sink)
      } else if rows == 6 && halfPanel {
        Self.accumulate6Half(a, lda, segments, length, panel, sink)
      } else if rows == 6 {
        Self.accumulate6(a, lda, segments, length, panel, sink)
      } else if rows == 4 {
        Self.accumulate4(a, lda, segments, length, panel, sink)
      } else {
        Self.accumulate2(a, lda, segments, length, panel, sink)
      }
    }
    if width == 8 {
      run(
        FinishedHalfPanel(
          c: out, ldc: ldc, bias: bias.lowHalf, activation: activation, residual: extra, residualStride: stride),
        halfPanel: true)
    } else {
      run(
        FinishedTile(
          c: out, ldc: ldc, bias: (bias, bias), activation: activation, residual: extra, residualStride: stride),
        halfPanel: false)
    }
  }

  /// The rows of the next tile when `remaining` rows of C are left: a whole tile, or the
  /// tail in the shorter tiles (4, 2, 1) that have micro-kernels of their own. A GEMM that
  /// is one half panel (`halfPanel`: eight columns) takes twelve rows where the tile is six
  /// (`accumulate12Half`).
  @inline(__always)
  static func height(_ remaining: Int, tileRows: Int, halfPanel: Bool = false) -> Int {
    if halfPanel && tileRows == 6 && remaining >= 12 { return 12 }
    if remaining >= tileRows { return tileRows }
    return remaining >= 4 ? 4 : remaining >= 2 ? 2 : 1
  }

  /// Where the runs of each row of A start, relative to the row's start.
  struct Segments {
    var offsets: UnsafePointer<Int>
    var count: Int
  }

  /// A tensor added to C after the bias: `channels` values per row (channels ≤ n; the rest
  /// of each row gets +0, as after a zero PAD of the channels).
  struct Residual {
    /// Row 0 of the residual.
    var values: UnsafePointer<Float>
    /// Values per row.
    var channels: Int

    /// A residual of `channels` values per row starting at `values`.
    init(_ values: UnsafePointer<Float>, channels: Int) {
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
