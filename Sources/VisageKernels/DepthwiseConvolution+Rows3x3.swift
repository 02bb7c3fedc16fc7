/// The 3×3 depthwise fast path (stride 1 or 2, dilation 1, multiplier 1, at least eight
/// channels): one span of an output row at a time and, within it, one block of 16 (or 8)
/// channels at a time, the block's nine weights held in registers while the span's pixels
/// stream past. Spans are short enough that their three input rows stay in L1 while every
/// channel block passes over them (whole rows of the 96×96×32 layers did not, measured 20%
/// slower).
///
/// Border handling costs no branches per pixel. A 3×3 window hangs at most one column off
/// each side, so the first and last pixels of a row get their own six-tap sums, and a row
/// above or below the image is read from a row of zeros. A zero row adds x·w = ±0 to a sum
/// that starts at +0, which leaves every sum unchanged, so the results are the reference's
/// (which skips those taps) to the bit for any finite filter.
extension DepthwiseConvolution {
  /// How the windows of every output row fall across the input columns.
  struct Rows3x3 {
    /// Whether output column 0's window starts one column left of the image.
    var leftEdge: Bool
    /// Whether the last output column's window ends one column right of the image.
    var rightEdge: Bool
    /// Output columns whose window lies wholly inside the image.
    var firstInside: Int
    var endInside: Int

    /// The plan for `g`, or nil when the row kernel does not cover it.
    init?(_ g: ConvolutionGeometry) {
      guard g.filterHeight == 3, g.filterWidth == 3, g.dilationHeight == 1, g.dilationWidth == 1,
        g.output.channels == g.input.channels, g.input.channels >= 8, g.padLeft <= 1
      else { return nil }
      let width = g.input.width
      firstInside = g.padLeft
      let lastOrigin = (g.output.width - 1) * g.strideWidth - g.padLeft
      rightEdge = lastOrigin + 2 >= width
      endInside = g.output.width - (rightEdge ? 1 : 0)
      // The edge pixels must each miss exactly one column, with one inside pixel between.
      guard endInside > firstInside, !rightEdge || lastOrigin + 2 == width else { return nil }
      leftEdge = firstInside == 1
    }

    /// Output columns `start..<end` of a row: which edge pixels they include and where
    /// their inside windows start.
    func span(_ start: Int, _ end: Int, _ g: ConvolutionGeometry) -> Span {
      let first = max(start, firstInside)
      return Span(
        start: start, leftEdge: leftEdge && start == 0, insideCount: max(0, min(end, endInside) - first),
        firstOrigin: first * g.strideWidth - g.padLeft, rightEdge: rightEdge && end == g.output.width)
    }
  }

  /// A run of output columns of one row.
  struct Span {
    /// The first output column.
    var start: Int
    /// Whether it starts with the left edge pixel.
    var leftEdge: Bool
    /// Windows wholly inside the image, after the left edge pixel if any.
    var insideCount: Int
    /// Input column where the first of those windows starts.
    var firstOrigin: Int
    /// Whether it ends with the right edge pixel.
    var rightEdge: Bool
  }

  static func run3x3(
    _ g: ConvolutionGeometry, _ rows: Rows3x3, _ input: UnsafePointer<Float>,
    _ filter: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: Clamp,
    _ slopes: UnsafePointer<Float>?, _ output: UnsafeMutablePointer<Float>, _ outputRows: Range<Int>,
    _ zeroRow: UnsafePointer<Float>
  ) {
    let channels = g.input.channels
    // About 4 KB of each input row per span.
    let spanWidth = max(8, 1024 / (channels * g.strideWidth))
    for outputRow in outputRows {
      let (b, outY) = outputRow.quotientAndRemainder(dividingBy: g.output.height)
      let originY = outY * g.strideHeight - g.padTop
      func row(_ fy: Int) -> UnsafePointer<Float> {
        let y = originY + fy
        return y >= 0 && y < g.input.height ? input + g.input.offset(b, y, 0, 0) : zeroRow
      }
      let (r0, r1, r2) = (row(0), row(1), row(2))
      let out = output + g.output.offset(b, outY, 0, 0)
      for start in stride(from: 0, to: g.output.width, by: spanWidth) {
        let span = rows.span(start, min(start + spanWidth, g.output.width), g)
        // Blocks of 16 channels, then a last block of 16 or 8 shifted back to end at the
        // last channel: recomputing a few channels is cheaper than a scalar tail.
        var c = 0
        while c < channels {
          if channels - c >= 16 {
            block(SIMD16<Float>.self, c, r0, r1, r2, out, span, g, filter, bias, clamp, slopes)
            c += 16
          } else if channels >= 16 && channels - c > 8 {
            block(SIMD16<Float>.self, channels - 16, r0, r1, r2, out, span, g, filter, bias, clamp, slopes)
            c = channels
          } else {
            block(SIMD8<Float>.self, min(c, channels - 8), r0, r1, r2, out, span, g, filter, bias, clamp, slopes)
            c += 8
          }
        }
      }
    }
  }

  /// Channels `c..<c + V.scalarCount` of one span of an output row, from input rows `r0`,
  /// `r1`, `r2`.
  /// Taps are summed in filter order from zero, as the reference does, skipping those off
  /// the left or right edge.
  ///
  /// The pixel loop has no branches: a PReLU runs as a second pass over the block, because
  /// testing for it inside the loop made LLVM split every vector into scalar and 128-bit
  /// pieces (measured 4x slower). Not inlined, so that each width is optimized on its own.
  @inline(never)
  private static func block<V: FloatVector>(
    _: V.Type, _ c: Int, _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
    _ r2: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ span: Span,
    _ g: ConvolutionGeometry, _ filter: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
    _ clamp: Clamp, _ slopes: UnsafePointer<Float>?
  ) {
    let c1 = g.input.channels
    let c2 = 2 * c1
    let step = g.strideWidth * c1
    let w0 = filter.load(V.self, at: c), w1 = filter.load(V.self, at: c1 + c)
    let w2 = filter.load(V.self, at: c2 + c), w3 = filter.load(V.self, at: 3 * c1 + c)
    let w4 = filter.load(V.self, at: 4 * c1 + c), w5 = filter.load(V.self, at: 5 * c1 + c)
    let w6 = filter.load(V.self, at: 6 * c1 + c), w7 = filter.load(V.self, at: 7 * c1 + c)
    let w8 = filter.load(V.self, at: 8 * c1 + c)
    let bv = bias.load(V.self, at: c)
    // The clamp spelled out on V: the generic `Clamp` call stayed a call per pixel.
    let lower = V(repeating: clamp.lowerBound)
    let upper = V(repeating: clamp.upperBound)
    var o = out + span.start * c1 + c
    if span.leftEdge {
      // The window starts at column -1: its fx = 0 taps are padding.
      var acc = r0.load(V.self, at: c) * w1 + V()
      acc = r0.load(V.self, at: c1 + c) * w2 + acc
      acc = r1.load(V.self, at: c) * w4 + acc
      acc = r1.load(V.self, at: c1 + c) * w5 + acc
      acc = r2.load(V.self, at: c) * w7 + acc
      acc = r2.load(V.self, at: c1 + c) * w8 + acc
      o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
      o += c1
    }
    var x0 = r0 + span.firstOrigin * c1 + c
    var x1 = r1 + span.firstOrigin * c1 + c
    var x2 = r2 + span.firstOrigin * c1 + c
    for _ in 0..<span.insideCount {
      var acc = x0.load(V.self, at: 0) * w0 + V()
      acc = x0.load(V.self, at: c1) * w1 + acc
      acc = x0.load(V.self, at: c2) * w2 + acc
      acc = x1.load(V.self, at: 0) * w3 + acc
      acc = x1.load(V.self, at: c1) * w4 + acc
      acc = x1.load(V.self, at: c2) * w5 + acc
      acc = x2.load(V.self, at: 0) * w6 + acc
      acc = x2.load(V.self, at: c1) * w7 + acc
      acc = x2.load(V.self, at: c2) * w8 + acc
      o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
      x0 += step
      x1 += step
      x2 += step
      o += c1
    }
    if span.rightEdge {
      // x0, x1, x2 now point at this window's start; its fx = 2 taps are padding.
      var acc = x0.load(V.self, at: 0) * w0 + V()
      acc = x0.load(V.self, at: c1) * w1 + acc
      acc = x1.load(V.self, at: 0) * w3 + acc
      acc = x1.load(V.self, at: c1) * w4 + acc
      acc = x2.load(V.self, at: 0) * w6 + acc
      acc = x2.load(V.self, at: c1) * w7 + acc
      o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
    }
    if let slopes {
      let slope = slopes.load(V.self, at: c)
      var o = out + span.start * c1 + c
      for _ in 0..<(span.insideCount + (span.leftEdge ? 1 : 0) + (span.rightEdge ? 1 : 0)) {
        o.store(V.prelu(o.load(V.self, at: 0), slope), at: 0)
        o += c1
      }
    }
  }
}
