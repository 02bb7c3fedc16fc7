/// 2-D pooling over NHWC data.
public enum Pooling {
  /// Max pool with eight channels per SIMD step and a scalar tail; 2×2 windows wholly
  /// inside the input (BlazeFace's downsampling) take a row kernel 16 channels at a time.
  /// `rows`, if given, limits the work to those output rows (counted over batch × height),
  /// so threads can share a layer.
  public static func optimized(
    _ g: PoolingGeometry, input: UnsafePointer<Float>, clamp: Clamp,
    output: UnsafeMutablePointer<Float>, rows: Range<Int>? = nil
  ) {
    let channels = g.input.channels
    let vectorEnd = channels & ~7
    let (firstInside, endInside) = insideColumns(g)
    let rowKernel = takesRowKernel(g)
    for row in rows ?? 0..<(g.output.batch * g.output.height) {
      let (b, outY) = row.quotientAndRemainder(dividingBy: g.output.height)
      let originY = outY * g.strideHeight - g.padTop
      let fyStart = max(0, -originY)
      let fyEnd = max(fyStart, min(g.filterHeight, g.input.height - originY))
      let rowInside = fyStart == 0 && fyEnd == g.filterHeight
      for outX in 0..<g.output.width {
        if rowKernel && rowInside && outX == firstInside {
          let originX = firstInside * g.strideWidth - g.padLeft
          MicroKernels.active.maxPool2x2Row(
            input + g.input.offset(b, originY, originX, 0), g.input.width * channels,
            g.strideWidth * channels, output + g.output.offset(b, outY, outX, 0),
            endInside - firstInside, channels, clamp.lowerBound, clamp.upperBound)
        }
        if rowKernel && rowInside && outX >= firstInside && outX < endInside { continue }
        let originX = outX * g.strideWidth - g.padLeft
        let fxStart = max(0, -originX)
        let fxEnd = max(fxStart, min(g.filterWidth, g.input.width - originX))
        let out = output + g.output.offset(b, outY, outX, 0)
        var c = 0
        while c < vectorEnd {
          var maximum = Vector(repeating: -.greatestFiniteMagnitude)
          for fy in fyStart..<fyEnd {
            for fx in fxStart..<fxEnd {
              let x = input.vector(at: g.input.offset(b, originY + fy, originX + fx, c))
              maximum = lanewiseMax(maximum, x)
            }
          }
          out.store(clamp(maximum), at: c)
          c += 8
        }
        while c < channels {
          var maximum = -Float.greatestFiniteMagnitude
          for fy in fyStart..<fyEnd {
            for fx in fxStart..<fxEnd {
              maximum = max(maximum, input[g.input.offset(b, originY + fy, originX + fx, c)])
            }
          }
          out[c] = clamp(maximum)
          c += 1
        }
      }
    }
  }

  /// The output columns whose windows lie inside the input.
  static func insideColumns(_ g: PoolingGeometry) -> (first: Int, end: Int) {
    let first = (g.padLeft + g.strideWidth - 1) / g.strideWidth
    let last = g.input.width - g.filterWidth + g.padLeft
    return (first, last >= 0 ? min(g.output.width, last / g.strideWidth + 1) : 0)
  }

  /// Whether the 2×2 row kernel takes `insideColumns` of the rows whose windows lie inside.
  static func takesRowKernel(_ g: PoolingGeometry) -> Bool {
    let (first, end) = insideColumns(g)
    return g.filterHeight == 2 && g.filterWidth == 2 && g.input.channels >= 8 && end > first
  }
}
