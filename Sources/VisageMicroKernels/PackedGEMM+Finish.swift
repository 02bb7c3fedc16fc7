// How a micro-kernel's sums become C: straight from registers for the common shapes
// (the sinks), or through a tile buffer and `Finish.store` for the rest.

/// Where a micro-kernel puts each accumulator: row `row` of the tile's panel `panel`
/// (0, or 1 for the second of a pair).
protocol TileSink {
  func put(_ v: SIMD16<Float>, row: Int, panel: Int)
}

/// The raw sums, into a tile buffer (the second panel's rows from `tile[8]`), for
/// `Finish.store` to finish: partial panels, partial residuals, PReLU.
struct RawTile: TileSink {
  let tile: UnsafeMutablePointer<SIMD16<Float>>

  @inline(__always)
  func put(_ v: SIMD16<Float>, row: Int, panel: Int) { tile[panel * 8 + row] = v }
}

/// What a finished tile applies after the bias and the residual: the clamp, then a PReLU
/// where one is fused. A type parameter of the sinks, so each kind is compiled into its own
/// micro-kernel copy with no branches.
protocol TileActivation {
  /// All sixteen lanes of the tile's panel `panel` (0 or 1).
  func callAsFunction(_ v: SIMD16<Float>, panel: Int) -> SIMD16<Float>
  /// The first eight lanes of panel `panel`.
  func callAsFunction(_ v: SIMD8<Float>, panel: Int) -> SIMD8<Float>
}

/// The clamp alone. (Unbounded clamps take `Unclamped` or `PReLU` instead: measured 21% of
/// the landmark model's 8-to-16-channel 1×1 convolutions.)
struct Clamped: TileActivation {
  let lower: SIMD16<Float>
  let upper: SIMD16<Float>

  init(lower: Float, upper: Float) {
    self.lower = SIMD16(repeating: lower)
    self.upper = SIMD16(repeating: upper)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD16<Float>, panel: Int) -> SIMD16<Float> {
    SIMD16.minimum(SIMD16.maximum(v, lower), upper)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD8<Float>, panel: Int) -> SIMD8<Float> {
    SIMD8.minimum(SIMD8.maximum(v, lower.lowHalf), upper.lowHalf)
  }
}

/// The clamp, then a PReLU with the panels' slopes.
struct ClampedPReLU: TileActivation {
  let lower: SIMD16<Float>
  let upper: SIMD16<Float>
  let slopes: (SIMD16<Float>, SIMD16<Float>)

  init(lower: Float, upper: Float, slopes: UnsafePointer<Float>, column: Int, panels: Int) {
    self.lower = SIMD16(repeating: lower)
    self.upper = SIMD16(repeating: upper)
    let first = slopes.load(SIMD16<Float>.self, at: column)
    self.slopes = (first, panels == 2 ? slopes.load(SIMD16<Float>.self, at: column + 16) : first)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD16<Float>, panel: Int) -> SIMD16<Float> {
    SIMD16.prelu(SIMD16.minimum(SIMD16.maximum(v, lower), upper), panel == 0 ? slopes.0 : slopes.1)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD8<Float>, panel: Int) -> SIMD8<Float> {
    SIMD8.prelu(
      SIMD8.minimum(SIMD8.maximum(v, lower.lowHalf), upper.lowHalf), panel == 0 ? slopes.0.lowHalf : slopes.1.lowHalf)
  }
}

/// Nothing: the layers with neither a clamp nor a PReLU.
struct Unclamped: TileActivation {
  @inline(__always)
  func callAsFunction(_ v: SIMD16<Float>, panel: Int) -> SIMD16<Float> { v }

  @inline(__always)
  func callAsFunction(_ v: SIMD8<Float>, panel: Int) -> SIMD8<Float> { v }
}

/// A PReLU with the panels' slopes and no clamp: the layers whose clamp is unbounded
/// (`Finish.isUnbounded`), spared its two operations per vector.
struct PReLU: TileActivation {
  let slopes: (SIMD16<Float>, SIMD16<Float>)

  init(slopes: UnsafePointer<Float>, column: Int, panels: Int) {
    let first = slopes.load(SIMD16<Float>.self, at: column)
    self.slopes = (first, panels == 2 ? slopes.load(SIMD16<Float>.self, at: column + 16) : first)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD16<Float>, panel: Int) -> SIMD16<Float> {
    SIMD16.prelu(v, panel == 0 ? slopes.0 : slopes.1)
  }

  @inline(__always)
  func callAsFunction(_ v: SIMD8<Float>, panel: Int) -> SIMD8<Float> {
    SIMD8.prelu(v, panel == 0 ? slopes.0.lowHalf : slopes.1.lowHalf)
  }
}

/// Finished straight into C, for whole panels: bias, then the residual (when there is one;
/// it has every column of these panels), then the activation. No loops or partial stores
/// here: with them, LLVM split the micro-kernel's vectors again (measured 2.4x slower).
struct FinishedTile<Activation: TileActivation>: TileSink {
  let c: UnsafeMutablePointer<Float>
  let ldc: Int
  let bias: (SIMD16<Float>, SIMD16<Float>)
  let activation: Activation
  let residual: UnsafePointer<Float>?
  let residualStride: Int

  @inline(__always)
  func put(_ v: SIMD16<Float>, row: Int, panel: Int) {
    var v = v + (panel == 0 ? bias.0 : bias.1)
    if let residual { v = v + residual.load(SIMD16<Float>.self, at: row * residualStride + panel * 16) }
    c.store(activation(v, panel: panel), at: row * ldc + panel * 16)
  }
}

/// As `FinishedTile` for a pair whose second panel has only eight columns (24 outputs).
struct FinishedTileAndHalf<Activation: TileActivation>: TileSink {
  let c: UnsafeMutablePointer<Float>
  let ldc: Int
  let bias: (SIMD16<Float>, SIMD8<Float>)
  let activation: Activation
  let residual: UnsafePointer<Float>?
  let residualStride: Int

  @inline(__always)
  func put(_ v: SIMD16<Float>, row: Int, panel: Int) {
    if panel == 0 {
      var v = v + bias.0
      if let residual { v = v + residual.load(SIMD16<Float>.self, at: row * residualStride) }
      c.store(activation(v, panel: 0), at: row * ldc)
    } else {
      var v = v.lowHalf + bias.1
      if let residual { v = v + residual.load(SIMD8<Float>.self, at: row * residualStride + 16) }
      c.store(activation(v, panel: 1), at: row * ldc + 16)
    }
  }
}

/// As `FinishedTile` for a single panel of which only the first eight columns exist (the
/// full-range model's 8-channel layers).
struct FinishedHalfPanel<Activation: TileActivation>: TileSink {
  let c: UnsafeMutablePointer<Float>
  let ldc: Int
  let bias: SIMD8<Float>
  let activation: Activation
  let residual: UnsafePointer<Float>?
  let residualStride: Int

  @inline(__always)
  func put(_ v: SIMD16<Float>, row: Int, panel: Int) {
    var v = v.lowHalf + bias
    if let residual { v = v + residual.load(SIMD8<Float>.self, at: row * residualStride) }
    c.store(activation(v, panel: 0), at: row * ldc)
  }
}

/// Bias, residual (its first `count` lanes; +0 in the rest), clamp, PReLU: the order of the
/// separate operators, applied to a finished tile's accumulators as they are stored.
struct Finish {
  let bias: UnsafePointer<Float>
  let slopes: UnsafePointer<Float>?
  let lower: Float
  let upper: Float

  /// Whether the clamp is (−∞, +∞), which changes no number (`max(v, −∞)` and `min(v, +∞)`
  /// are v), so the micro-kernels skip it.
  var isUnbounded: Bool { lower == -.infinity && upper == .infinity }

  /// Stores `rows` accumulators of the panel at `column` (`width` columns of it) to C,
  /// finished. `residual` is the first row's residual values for this panel, `count` of
  /// them (0 to 16), rows `stride` apart.
  ///
  /// Full panels with no PReLU, the common case, take loops with no branches inside;
  /// anything else goes row by row.
  func store(
    _ tile: UnsafePointer<SIMD16<Float>>, rows: Int, column: Int, width: Int,
    _ c: UnsafeMutablePointer<Float>, ldc: Int,
    residual: (values: UnsafePointer<Float>, stride: Int, count: Int)?
  ) {
    let b = bias.load(SIMD16<Float>.self, at: column)
    // The clamp spelled out on concrete vectors: the generic `Clamp` call stayed a call
    // here (measured 15% of face_detector).
    let lower = SIMD16<Float>(repeating: self.lower)
    let upper = SIMD16<Float>(repeating: self.upper)
    if width == 16 && slopes == nil {
      if let residual, residual.count == 16 {
        for r in 0..<rows {
          let v = tile[r] + b + residual.values.load(SIMD16<Float>.self, at: r * residual.stride)
          c.store(SIMD16.minimum(SIMD16.maximum(v, lower), upper), at: r * ldc)
        }
        return
      }
      if residual == nil {
        for r in 0..<rows {
          c.store(SIMD16.minimum(SIMD16.maximum(tile[r] + b, lower), upper), at: r * ldc)
        }
        return
      }
    }
    let slope = slopes.map { $0.load(SIMD16<Float>.self, at: column) }
    for r in 0..<rows {
      var v = tile[r] + b
      if let residual { v = v + Self.partial(residual.values + r * residual.stride, residual.count) }
      v = SIMD16.minimum(SIMD16.maximum(v, lower), upper)
      if let slope { v = SIMD16.prelu(v, slope) }
      PackedGEMMKernel.store(v, c + r * ldc, width)
    }
  }

  /// The first `count` values (0 to 16), then zeros: reads nothing past the residual.
  static func partial(_ values: UnsafePointer<Float>, _ count: Int) -> SIMD16<Float> {
    if count == 16 { return values.load(SIMD16<Float>.self, at: 0) }
    // Whole loads of eight and four where they fit, then lane by lane (a lane index that is
    // not a constant goes through the stack).
    var low = SIMD8<Float>()
    var high = SIMD8<Float>()
    var i = 0
    if count >= 8 {
      low = values.load(SIMD8<Float>.self, at: 0)
      i = 8
    }
    if count - i >= 4 {
      let quarter = UnsafeRawPointer(values + i).loadUnaligned(as: SIMD4<Float>.self)
      if i == 0 { low.lowHalf = quarter } else { high.lowHalf = quarter }
      i += 4
    }
    var extra = SIMD16(lowHalf: low, highHalf: high)
    while i < count {
      extra[i] = values[i]
      i += 1
    }
    return extra
  }
}
