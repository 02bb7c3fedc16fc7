/// The packed GEMM's micro-kernels: a tile of 8, 6, 4, 2 or 1 rows of A times one or two
/// 16-column panels, or 12 or 6 rows times a half panel. Where their sums go is in
/// PackedGEMM+Finish.swift.
extension PackedGEMMKernel {
  /// `rows` rows of A (1 to 8, or 12, which the tile buffer also holds) times one panel,
  /// written to `tile`.
  @inline(__always)
  static func accumulate(
    _ rows: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ tile: UnsafeMutablePointer<SIMD16<Float>>
  ) {
    switch rows {
    case 8: accumulate8(a, lda, segments, length, panel, RawTile(tile: tile))
    case 6: accumulate6(a, lda, segments, length, panel, RawTile(tile: tile))
    case 4: accumulate4(a, lda, segments, length, panel, RawTile(tile: tile))
    case 2: accumulate2(a, lda, segments, length, panel, RawTile(tile: tile))
    default:
      for r in 0..<rows { tile[r] = accumulate1(a + r * lda, segments, length, panel) }
    }
  }

  /// Eight rows of A times one panel, handed to `sink`. The sink is a type parameter, so
  /// each kind of finish is compiled into its own copy of the loop with no branches: with
  /// the general finish (optional residual and PReLU) in the same function, LLVM split this
  /// loop's vectors into pieces (measured 2x slower).
  @inline(never)
  static func accumulate8<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
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
    for s in 0..<segments.count {
      // One pointer per row, so the loop below only adds p (indexing x[r·lda + p] put eight
      // overflow-checked additions and stack reloads in it; measured 1.6x slower).
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      let x2 = x1 + lda
      let x3 = x2 + lda
      let x4 = x3 + lda
      let x5 = x4 + lda
      let x6 = x5 + lda
      let x7 = x6 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD16(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD16(repeating: x1[p]), c1)
        c2 = multiplyAdd(wv, SIMD16(repeating: x2[p]), c2)
        c3 = multiplyAdd(wv, SIMD16(repeating: x3[p]), c3)
        c4 = multiplyAdd(wv, SIMD16(repeating: x4[p]), c4)
        c5 = multiplyAdd(wv, SIMD16(repeating: x5[p]), c5)
        c6 = multiplyAdd(wv, SIMD16(repeating: x6[p]), c6)
        c7 = multiplyAdd(wv, SIMD16(repeating: x7[p]), c7)
        w += 16
      }
    }
    sink.put(c0, row: 0, panel: 0)
    sink.put(c1, row: 1, panel: 0)
    sink.put(c2, row: 2, panel: 0)
    sink.put(c3, row: 3, panel: 0)
    sink.put(c4, row: 4, panel: 0)
    sink.put(c5, row: 5, panel: 0)
    sink.put(c6, row: 6, panel: 0)
    sink.put(c7, row: 7, panel: 0)
  }

  /// Eight rows of A times two neighbouring panels, handed to `sink`: each broadcast of A
  /// then serves 32 columns.
  @inline(never)
  static func accumulate8x2<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
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
    let next = 16 * segments.count * length
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      let x2 = x1 + lda
      let x3 = x2 + lda
      let x4 = x3 + lda
      let x5 = x4 + lda
      let x6 = x5 + lda
      let x7 = x6 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        let wu = w.load(SIMD16<Float>.self, at: next)
        var x = SIMD16<Float>(repeating: x0[p])
        c0 = multiplyAdd(wv, x, c0)
        d0 = multiplyAdd(wu, x, d0)
        x = SIMD16<Float>(repeating: x1[p])
        c1 = multiplyAdd(wv, x, c1)
        d1 = multiplyAdd(wu, x, d1)
        x = SIMD16<Float>(repeating: x2[p])
        c2 = multiplyAdd(wv, x, c2)
        d2 = multiplyAdd(wu, x, d2)
        x = SIMD16<Float>(repeating: x3[p])
        c3 = multiplyAdd(wv, x, c3)
        d3 = multiplyAdd(wu, x, d3)
        x = SIMD16<Float>(repeating: x4[p])
        c4 = multiplyAdd(wv, x, c4)
        d4 = multiplyAdd(wu, x, d4)
        x = SIMD16<Float>(repeating: x5[p])
        c5 = multiplyAdd(wv, x, c5)
        d5 = multiplyAdd(wu, x, d5)
        x = SIMD16<Float>(repeating: x6[p])
        c6 = multiplyAdd(wv, x, c6)
        d6 = multiplyAdd(wu, x, d6)
        x = SIMD16<Float>(repeating: x7[p])
        c7 = multiplyAdd(wv, x, c7)
        d7 = multiplyAdd(wu, x, d7)
        w += 16
      }
    }
    sink.put(c0, row: 0, panel: 0)
    sink.put(c1, row: 1, panel: 0)
    sink.put(c2, row: 2, panel: 0)
    sink.put(c3, row: 3, panel: 0)
    sink.put(c4, row: 4, panel: 0)
    sink.put(c5, row: 5, panel: 0)
    sink.put(c6, row: 6, panel: 0)
    sink.put(c7, row: 7, panel: 0)
    sink.put(d0, row: 0, panel: 1)
    sink.put(d1, row: 1, panel: 1)
    sink.put(d2, row: 2, panel: 1)
    sink.put(d3, row: 3, panel: 1)
    sink.put(d4, row: 4, panel: 1)
    sink.put(d5, row: 5, panel: 1)
    sink.put(d6, row: 6, panel: 1)
    sink.put(d7, row: 7, panel: 1)
  }

  /// Six rows of A times one panel, handed to `sink`: AVX2's tile, whose twelve eight-lane
  /// accumulators, two of weights and one broadcast fill its sixteen registers.
  @inline(never)
  static func accumulate6<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var c4 = SIMD16<Float>()
    var c5 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      let x2 = x1 + lda
      let x3 = x2 + lda
      let x4 = x3 + lda
      let x5 = x4 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD16(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD16(repeating: x1[p]), c1)
        c2 = multiplyAdd(wv, SIMD16(repeating: x2[p]), c2)
        c3 = multiplyAdd(wv, SIMD16(repeating: x3[p]), c3)
        c4 = multiplyAdd(wv, SIMD16(repeating: x4[p]), c4)
        c5 = multiplyAdd(wv, SIMD16(repeating: x5[p]), c5)
        w += 16
      }
    }
    sink.put(c0, row: 0, panel: 0)
    sink.put(c1, row: 1, panel: 0)
    sink.put(c2, row: 2, panel: 0)
    sink.put(c3, row: 3, panel: 0)
    sink.put(c4, row: 4, panel: 0)
    sink.put(c5, row: 5, panel: 0)
  }

  /// Six rows of A times the first half (eight columns) of one panel, handed to `sink` as
  /// panel 0 with its upper eight lanes a copy of the lower (for `FinishedHalfPanel`, which
  /// reads only those). A channel count of 16k + 8 ends with such a half panel, and the
  /// landmark model's 1×1 convolutions to eight channels are nothing else: the whole-panel
  /// kernel would spend half its multiply-adds on the padding. (Not one function generic over
  /// the vector with `accumulate6`: that left the standard library's `loadUnaligned` for
  /// `SIMD16<Float>` un-inlined, a weak symbol the copies would share; see
  /// .ci/check-isa-symbols.)
  @inline(never)
  static func accumulate6Half<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
  ) {
    var c0 = SIMD8<Float>()
    var c1 = SIMD8<Float>()
    var c2 = SIMD8<Float>()
    var c3 = SIMD8<Float>()
    var c4 = SIMD8<Float>()
    var c5 = SIMD8<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      let x2 = x1 + lda
      let x3 = x2 + lda
      let x4 = x3 + lda
      let x5 = x4 + lda
      for p in 0..<length {
        let wv = w.load(SIMD8<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD8(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD8(repeating: x1[p]), c1)
        c2 = multiplyAdd(wv, SIMD8(repeating: x2[p]), c2)
        c3 = multiplyAdd(wv, SIMD8(repeating: x3[p]), c3)
        c4 = multiplyAdd(wv, SIMD8(repeating: x4[p]), c4)
        c5 = multiplyAdd(wv, SIMD8(repeating: x5[p]), c5)
        w += 16
      }
    }
    sink.put(SIMD16(lowHalf: c0, highHalf: c0), row: 0, panel: 0)
    sink.put(SIMD16(lowHalf: c1, highHalf: c1), row: 1, panel: 0)
    sink.put(SIMD16(lowHalf: c2, highHalf: c2), row: 2, panel: 0)
    sink.put(SIMD16(lowHalf: c3, highHalf: c3), row: 3, panel: 0)
    sink.put(SIMD16(lowHalf: c4, highHalf: c4), row: 4, panel: 0)
    sink.put(SIMD16(lowHalf: c5, highHalf: c5), row: 5, panel: 0)
  }

  /// Twelve rows of A times the first half of one panel, as `accumulate6Half` (same sums in
  /// the same order): with six, each step's six multiply-adds wait on the four-cycle
  /// latency of the previous step's, so a half panel ran at three quarters of the FMA
  /// throughput; twelve independent accumulators (of sixteen registers) keep both FMA pipes
  /// busy and halve the per-tile work around the loop.
  @inline(never)
  static func accumulate12Half<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
  ) {
    var c0 = SIMD8<Float>()
    var c1 = SIMD8<Float>()
    var c2 = SIMD8<Float>()
    var c3 = SIMD8<Float>()
    var c4 = SIMD8<Float>()
    var c5 = SIMD8<Float>()
    var c6 = SIMD8<Float>()
    var c7 = SIMD8<Float>()
    var c8 = SIMD8<Float>()
    var c9 = SIMD8<Float>()
    var c10 = SIMD8<Float>()
    var c11 = SIMD8<Float>()
    var w = panel
    // Two row pointers, the other rows at offsets from them in wrapping arithmetic (twelve
    // pointers do not fit the registers, and checked offsets put an overflow test beside
    // each load).
    let (l1, l2, l3) = (lda, lda &* 2, lda &* 3)
    let (l4, l5) = (lda &* 4, lda &* 5)
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x6 = x0 + l5 + l1
      for p in 0..<length {
        let wv = w.load(SIMD8<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD8(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD8(repeating: x0[l1 &+ p]), c1)
        c2 = multiplyAdd(wv, SIMD8(repeating: x0[l2 &+ p]), c2)
        c3 = multiplyAdd(wv, SIMD8(repeating: x0[l3 &+ p]), c3)
        c4 = multiplyAdd(wv, SIMD8(repeating: x0[l4 &+ p]), c4)
        c5 = multiplyAdd(wv, SIMD8(repeating: x0[l5 &+ p]), c5)
        c6 = multiplyAdd(wv, SIMD8(repeating: x6[p]), c6)
        c7 = multiplyAdd(wv, SIMD8(repeating: x6[l1 &+ p]), c7)
        c8 = multiplyAdd(wv, SIMD8(repeating: x6[l2 &+ p]), c8)
        c9 = multiplyAdd(wv, SIMD8(repeating: x6[l3 &+ p]), c9)
        c10 = multiplyAdd(wv, SIMD8(repeating: x6[l4 &+ p]), c10)
        c11 = multiplyAdd(wv, SIMD8(repeating: x6[l5 &+ p]), c11)
        w += 16
      }
    }
    sink.put(SIMD16(lowHalf: c0, highHalf: c0), row: 0, panel: 0)
    sink.put(SIMD16(lowHalf: c1, highHalf: c1), row: 1, panel: 0)
    sink.put(SIMD16(lowHalf: c2, highHalf: c2), row: 2, panel: 0)
    sink.put(SIMD16(lowHalf: c3, highHalf: c3), row: 3, panel: 0)
    sink.put(SIMD16(lowHalf: c4, highHalf: c4), row: 4, panel: 0)
    sink.put(SIMD16(lowHalf: c5, highHalf: c5), row: 5, panel: 0)
    sink.put(SIMD16(lowHalf: c6, highHalf: c6), row: 6, panel: 0)
    sink.put(SIMD16(lowHalf: c7, highHalf: c7), row: 7, panel: 0)
    sink.put(SIMD16(lowHalf: c8, highHalf: c8), row: 8, panel: 0)
    sink.put(SIMD16(lowHalf: c9, highHalf: c9), row: 9, panel: 0)
    sink.put(SIMD16(lowHalf: c10, highHalf: c10), row: 10, panel: 0)
    sink.put(SIMD16(lowHalf: c11, highHalf: c11), row: 11, panel: 0)
  }

  /// Four rows of A times one panel, handed to `sink`.
  @inline(never)
  static func accumulate4<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var c2 = SIMD16<Float>()
    var c3 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      let x2 = x1 + lda
      let x3 = x2 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD16(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD16(repeating: x1[p]), c1)
        c2 = multiplyAdd(wv, SIMD16(repeating: x2[p]), c2)
        c3 = multiplyAdd(wv, SIMD16(repeating: x3[p]), c3)
        w += 16
      }
    }
    sink.put(c0, row: 0, panel: 0)
    sink.put(c1, row: 1, panel: 0)
    sink.put(c2, row: 2, panel: 0)
    sink.put(c3, row: 3, panel: 0)
  }

  /// Two rows of A times one panel, handed to `sink`.
  @inline(never)
  static func accumulate2<Sink: TileSink>(
    _ a: UnsafePointer<Float>, _ lda: Int, _ segments: Segments, _ length: Int,
    _ panel: UnsafePointer<Float>, _ sink: Sink
  ) {
    var c0 = SIMD16<Float>()
    var c1 = SIMD16<Float>()
    var w = panel
    for s in 0..<segments.count {
      let x0 = a + segments.offsets[s]
      let x1 = x0 + lda
      for p in 0..<length {
        let wv = w.load(SIMD16<Float>.self, at: 0)
        c0 = multiplyAdd(wv, SIMD16(repeating: x0[p]), c0)
        c1 = multiplyAdd(wv, SIMD16(repeating: x1[p]), c1)
        w += 16
      }
    }
    sink.put(c0, row: 0, panel: 0)
    sink.put(c1, row: 1, panel: 0)
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
        acc = multiplyAdd(w.load(SIMD16<Float>.self, at: 0), SIMD16(repeating: x[p]), acc)
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
    if width - i >= 4 {
      let quarter = i == 0 ? v.lowHalf.lowHalf : v.highHalf.lowHalf
      UnsafeMutableRawPointer(c + i).storeBytes(of: quarter, as: SIMD4<Float>.self)
      i += 4
    }
    while i < width {
      c[i] = v[i]
      i += 1
    }
  }
}
