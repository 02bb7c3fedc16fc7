/// The packed GEMM's micro-kernels: a tile of 8, 4, 2 or 1 rows of A times one 16-column
/// panel, and the finish applied to each row of the tile before it is stored.
extension PackedGEMM {
  /// The tile height this build runs fastest, measured once per process.
  ///
  /// Eight rows keep eight 16-lane accumulators, right for AVX-512's 32 vector registers
  /// (measured 1.4x faster than two rows); where 16 lanes take four SSE registers, eight
  /// rows spill and two rows are faster (measured 1.3x on the portable build). Swift cannot
  /// ask which target it was compiled for, so the first GEMM times each height on a small
  /// problem and keeps the fastest. Every height sums in the same order, so the choice
  /// changes speed, never results.
  public static let preferredTileRows: Int = {
    let (m, k) = (64, 64)
    let a = UnsafeMutablePointer<Float>.allocate(capacity: m * k)
    let panel = UnsafeMutablePointer<Float>.allocate(capacity: 16 * k)
    let tile = UnsafeMutablePointer<SIMD16<Float>>.allocate(capacity: 8)
    defer {
      a.deallocate()
      panel.deallocate()
      tile.deallocate()
    }
    for i in 0..<(m * k) { a[i] = Float(i % 7) - 3 }
    for i in 0..<(16 * k) { panel[i] = Float(i % 5) - 2 }
    let clock = ContinuousClock()
    var best = (rows: 8, time: Duration.seconds(1))
    for rows in [8, 4, 2] {
      var fastest = Duration.seconds(1)
      for _ in 0..<20 {
        let time = clock.measure {
          for row in stride(from: 0, to: m, by: rows) {
            accumulate(rows, a + row * k, k, .contiguous, k, panel, tile)
          }
        }
        fastest = min(fastest, time)
      }
      if fastest < best.time { best = (rows, fastest) }
    }
    return best.rows
  }()

  /// `rows` rows of A (1 to 8) times one panel, written to `tile`.
  @inline(__always)
  static func accumulate(
    _ rows: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    switch rows {
    case 8: accumulate8(a, lda, segments, length, panel, tile)
    case 4: accumulate4(a, lda, segments, length, panel, tile)
    case 2: accumulate2(a, lda, segments, length, panel, tile)
    default:
      for r in 0..<rows { tile[r] = accumulate1(a + r * lda, segments, length, panel) }
    }
  }

  /// Eight rows of A times one panel, written to `tile`. Only the sums happen here: with the
  /// finish in the same function, LLVM split this loop's vectors into pieces (measured 2x
  /// slower), so the caller finishes the tile.
  @inline(never)
  static func accumulate8(
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

  /// Four rows of A times one panel, written to `tile`.
  @inline(never)
  static func accumulate4(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>(), c2 = SIMD16<Float>(), c3 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda, x2 = x1 + lda, x3 = x2 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = wv * SIMD16(repeating: x0[p]) + c0
        c1 = wv * SIMD16(repeating: x1[p]) + c1
        c2 = wv * SIMD16(repeating: x2[p]) + c2
        c3 = wv * SIMD16(repeating: x3[p]) + c3
        w += 16
      }
    }
    (tile[0], tile[1], tile[2], tile[3]) = (c0, c1, c2, c3)
  }

  /// Two rows of A times one panel, written to `tile`.
  @inline(never)
  static func accumulate2(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    var c0 = SIMD16<Float>(), c1 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = wv * SIMD16(repeating: x0[p]) + c0
        c1 = wv * SIMD16(repeating: x1[p]) + c1
        w += 16
      }
    }
    (tile[0], tile[1]) = (c0, c1)
  }

  /// One row of A times one panel.
  @inline(never)
  static func accumulate1(
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
  static func store(_ v: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, _ width: Int) {
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
struct Finish {
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
