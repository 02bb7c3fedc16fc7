import CVisageISA

/// The 3×3 depthwise fast path (stride 1 or 2, dilation 1, multiplier 1, at least eight
/// channels): one span of an output row at a time and, within it, one block of 16 (or 8)
/// channels at a time, the block's nine weights held in registers while the span's pixels
/// stream past. Spans are short enough that their three input rows stay in L1 while every
/// channel block passes over them (whole rows of the 96×96×32 layers do not fit).
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

    /// The row kernel's parameters for `g`'s rows.
    func layer(
      _ g: ConvolutionGeometry, _ filter: UnsafePointer<Float>, _ epilogue: Epilogue.Bound
    ) -> VisageDepthwise3x3 {
      let channels = g.input.channels
      return VisageDepthwise3x3(
        channels: channels, strideWidth: g.strideWidth, outputWidth: g.output.width,
        // About 4 KB of each input row per span.
        spanWidth: max(8, 1024 / (channels * g.strideWidth)),
        leftEdge: leftEdge ? 1 : 0, rightEdge: rightEdge ? 1 : 0, firstInside: firstInside,
        endInside: endInside, padLeft: g.padLeft, filter: filter, bias: epilogue.bias!,
        slopes: epilogue.slopes, lower: epilogue.clamp.lowerBound, upper: epilogue.clamp.upperBound)
    }
  }

  static func run3x3(
    _ g: ConvolutionGeometry, _ rows: Rows3x3, _ input: UnsafePointer<Float>,
    _ filter: UnsafePointer<Float>, _ epilogue: Epilogue.Bound, _ output: UnsafeMutablePointer<Float>,
    _ outputRows: Range<Int>,
    _ zeroRow: UnsafePointer<Float>
  ) {
    let layer = rows.layer(g, filter, epilogue)
    let kernel = MicroKernels.active.depthwise3x3Row
    for outputRow in outputRows {
      let (b, outY) = outputRow.quotientAndRemainder(dividingBy: g.output.height)
      let originY = outY * g.strideHeight - g.padTop
      func row(_ fy: Int) -> UnsafePointer<Float> {
        let y = originY + fy
        return y >= 0 && y < g.input.height ? input + g.input.offset(b, y, 0, 0) : zeroRow
      }
      kernel(layer, row(0), row(1), row(2), output + g.output.offset(b, outY, 0, 0))
    }
  }
}
