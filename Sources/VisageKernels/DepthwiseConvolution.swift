/// Depthwise 2-D convolution in NHWC with [1, kh, kw, channels] filters.
///
/// The optimized kernel covers depth multiplier 1 (every depthwise layer in our models).
/// 3×3 filters, the common case, take the row kernel in DepthwiseConvolution+Rows3x3.swift;
/// other filters go eight channels per SIMD step, and for pixels whose window lies wholly
/// inside the image the taps are precomputed pointer offsets with no bounds tests. Taps are
/// summed in the reference's order and the bias added last, as the reference does, so that
/// without FMA contraction the results are the reference's to the bit. Other multipliers
/// run the reference.
public enum DepthwiseConvolution {
  /// Runs the optimized kernel, falling back to the reference for multipliers other than 1.
  ///
  /// The `epilogue` finishes every output: its bias must be given (zeros when the model has
  /// none, as the kernels always add one), its clamp and optional PReLU slopes follow; it
  /// takes no residual. With `rows`, only those output rows (counted over all images,
  /// `0..<batch·height`) are computed, so that threads can share a layer (see `splitsRows`).
  /// `zeros`, if given, holds at least `zeroCount(g)` zeros for the 3×3 kernel's rows above
  /// and below the image (planned once by the caller; without it each call makes its own).
  public static func optimized(
    _ g: ConvolutionGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
    epilogue: Epilogue.Bound, output: UnsafeMutablePointer<Float>, rows: Range<Int>? = nil,
    zeros: UnsafePointer<Float>? = nil
  ) {
    precondition(epilogue.bias != nil && epilogue.residual == nil)
    let rows = rows ?? 0..<(g.output.batch * g.output.height)
    guard splitsRows(g) else {
      reference(g, input: input, filter: filter, bias: epilogue.bias, clamp: epilogue.clamp, output: output)
      epilogue.applySeparately(to: output, rows: g.output.count / g.output.channels, channels: g.output.channels)
      return
    }
    if let plan = Rows3x3(g) {
      if let zeros {
        run3x3(g, plan, input, filter, epilogue, output, rows, zeros)
      } else {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: zeroCount(g)) { zeros in
          zeros.initialize(repeating: 0)
          run3x3(g, plan, input, filter, epilogue, output, rows, UnsafePointer(zeros.baseAddress!))
        }
      }
      return
    }
    let channels = g.input.channels
    let taps = g.filterHeight * g.filterWidth
    // Offsets of each tap from the window's top-left input value, in filter order.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: taps) { tapOffsets in
      for fy in 0..<g.filterHeight {
        for fx in 0..<g.filterWidth {
          tapOffsets[fy * g.filterWidth + fx] =
            (fy * g.dilationHeight * g.input.width + fx * g.dilationWidth) * channels
        }
      }
      run(g, input, filter, epilogue, output, tapOffsets.baseAddress!, rows)
    }
  }

  /// Zeros the 3×3 kernel reads in place of a row outside the image: one input row, or
  /// none for layers it does not run.
  public static func zeroCount(_ g: ConvolutionGeometry) -> Int {
    Rows3x3(g) == nil ? 0 : g.input.width * g.input.channels
  }

  /// Whether `optimized` can compute any range of output rows on its own: depth multiplier
  /// 1. Other multipliers run the whole reference, whatever rows are asked for.
  public static func splitsRows(_ g: ConvolutionGeometry) -> Bool { g.output.channels == g.input.channels }

  private static func run(
    _ g: ConvolutionGeometry, _ input: UnsafePointer<Float>, _ filter: UnsafePointer<Float>,
    _ epilogue: Epilogue.Bound, _ output: UnsafeMutablePointer<Float>, _ tapOffsets: UnsafeMutablePointer<Int>,
    _ rows: Range<Int>
  ) {
    let channels = g.input.channels
    let taps = g.filterHeight * g.filterWidth
    let spanHeight = (g.filterHeight - 1) * g.dilationHeight
    let spanWidth = (g.filterWidth - 1) * g.dilationWidth
    for row in rows {
      let (b, outY) = row.quotientAndRemainder(dividingBy: g.output.height)
      let originY = outY * g.strideHeight - g.padTop
      let rowInside = originY >= 0 && originY + spanHeight < g.input.height
      for outX in 0..<g.output.width {
        let originX = outX * g.strideWidth - g.padLeft
        let out = output + g.output.offset(b, outY, outX, 0)
        if rowInside && originX >= 0 && originX + spanWidth < g.input.width {
          let window = input + g.input.offset(b, originY, originX, 0)
          interior(window, tapOffsets, taps, filter, channels, epilogue, out)
        } else {
          border(g, b, originY, originX, filter, epilogue, input, out)
        }
      }
    }
  }

  @inline(__always)
  private static func interior(
    _ window: UnsafePointer<Float>, _ tapOffsets: UnsafeMutablePointer<Int>, _ taps: Int,
    _ filter: UnsafePointer<Float>, _ channels: Int, _ epilogue: Epilogue.Bound, _ out: UnsafeMutablePointer<Float>
  ) {
    var c = 0
    while c + 8 <= channels {
      var acc = Vector.zero
      for k in 0..<taps {
        acc = window.vector(at: tapOffsets[k] + c) * filter.vector(at: k * channels + c) + acc
      }
      out.store(epilogue(acc, channel: c, residualAt: 0), at: c)
      c += 8
    }
    while c < channels {
      var acc: Float = 0
      for k in 0..<taps { acc = window[tapOffsets[k] + c] * filter[k * channels + c] + acc }
      out[c] = epilogue(acc, channel: c, residualAt: 0)
      c += 1
    }
  }

  /// One output pixel whose window crosses the border: only the taps inside the image.
  private static func border(
    _ g: ConvolutionGeometry, _ b: Int, _ originY: Int, _ originX: Int,
    _ filter: UnsafePointer<Float>, _ epilogue: Epilogue.Bound, _ input: UnsafePointer<Float>,
    _ out: UnsafeMutablePointer<Float>
  ) {
    let channels = g.input.channels
    let fyStart = max(0, (-originY + g.dilationHeight - 1) / g.dilationHeight)
    let fyEnd = max(fyStart, min(g.filterHeight, (g.input.height - originY + g.dilationHeight - 1) / g.dilationHeight))
    let fxStart = max(0, (-originX + g.dilationWidth - 1) / g.dilationWidth)
    let fxEnd = max(fxStart, min(g.filterWidth, (g.input.width - originX + g.dilationWidth - 1) / g.dilationWidth))
    var c = 0
    while c + 8 <= channels {
      var acc = Vector.zero
      for fy in fyStart..<fyEnd {
        for fx in fxStart..<fxEnd {
          let x = input.vector(
            at: g.input.offset(b, originY + g.dilationHeight * fy, originX + g.dilationWidth * fx, c))
          acc = x * filter.vector(at: (fy * g.filterWidth + fx) * channels + c) + acc
        }
      }
      out.store(epilogue(acc, channel: c, residualAt: 0), at: c)
      c += 8
    }
    while c < channels {
      var acc: Float = 0
      for fy in fyStart..<fyEnd {
        for fx in fxStart..<fxEnd {
          let x = input[g.input.offset(b, originY + g.dilationHeight * fy, originX + g.dilationWidth * fx, c)]
          acc = x * filter[(fy * g.filterWidth + fx) * channels + c] + acc
        }
      }
      out[c] = epilogue(acc, channel: c, residualAt: 0)
      c += 1
    }
  }
}
