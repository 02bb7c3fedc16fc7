/// Depthwise 2-D convolution in NHWC with [1, kh, kw, channels] filters.
///
/// The optimized kernel covers depth multiplier 1 (every depthwise layer in our models):
/// eight channels per SIMD step, and for pixels whose window lies wholly inside the image
/// the taps are precomputed pointer offsets with no bounds tests. Taps are summed in the
/// reference's order and the bias added last, as the reference does, so that without FMA
/// contraction the results are the reference's to the bit. Other multipliers run the
/// reference.
public enum DepthwiseConvolution {
  /// Runs the optimized kernel, falling back to the reference for multipliers other than 1.
  ///
  /// With `slopes`, a per-channel PReLU follows the clamp (a fused PRELU).
  public static func optimized(
    _ g: ConvolutionGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, clamp: Clamp, slopes: UnsafePointer<Float>? = nil,
    output: UnsafeMutablePointer<Float>
  ) {
    guard g.output.channels == g.input.channels else {
      reference(g, input: input, filter: filter, bias: bias, clamp: clamp, output: output)
      if let slopes {
        for i in 0..<g.output.count {
          output[i] = Elementwise.prelu(output[i], slopes[i % g.output.channels])
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
      run(g, input, filter, bias, clamp, slopes, output, tapOffsets.baseAddress!)
    }
  }

  private static func run(
    _ g: ConvolutionGeometry, _ input: UnsafePointer<Float>, _ filter: UnsafePointer<Float>,
    _ bias: UnsafePointer<Float>, _ clamp: Clamp, _ slopes: UnsafePointer<Float>?,
    _ output: UnsafeMutablePointer<Float>, _ tapOffsets: UnsafeMutablePointer<Int>
  ) {
    let channels = g.input.channels
    let taps = g.filterHeight * g.filterWidth
    let spanHeight = (g.filterHeight - 1) * g.dilationHeight
    let spanWidth = (g.filterWidth - 1) * g.dilationWidth
    let is3x3 = g.filterHeight == 3 && g.filterWidth == 3 && g.dilationHeight == 1 && g.dilationWidth == 1
    // Output columns whose window lies inside the image: originX >= 0 and originX + span < width.
    let firstInside = (g.padLeft + g.strideWidth - 1) / g.strideWidth
    let endInside = max(firstInside, min(g.output.width, (g.input.width - 1 - spanWidth + g.padLeft) / g.strideWidth + 1))
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        let rowInside = originY >= 0 && originY + spanHeight < g.input.height
        if is3x3 && rowInside && channels >= 8 && endInside > firstInside {
          // Border columns one pixel at a time; the inside span one channel block at a time
          // with its nine weights held in registers.
          for outX in 0..<g.output.width where outX < firstInside || outX >= endInside {
            let originX = outX * g.strideWidth - g.padLeft
            border(g, b, originY, originX, filter, bias, clamp, slopes, input, output + g.output.offset(b, outY, outX, 0))
          }
          let rowInput = input + g.input.offset(b, originY, firstInside * g.strideWidth - g.padLeft, 0)
          let rowOutput = output + g.output.offset(b, outY, firstInside, 0)
          interior3x3(
            rowInput, rowOutput, count: endInside - firstInside, g.strideWidth * channels,
            g.input.width * channels, channels, filter, bias, clamp, slopes)
          continue
        }
        for outX in 0..<g.output.width {
          let originX = outX * g.strideWidth - g.padLeft
          let out = output + g.output.offset(b, outY, outX, 0)
          if rowInside && originX >= 0 && originX + spanWidth < g.input.width {
            let window = input + g.input.offset(b, originY, originX, 0)
            interior(window, tapOffsets, taps, filter, bias, channels, clamp, slopes, out)
          } else {
            border(g, b, originY, originX, filter, bias, clamp, slopes, input, out)
          }
        }
      }
    }
  }

  /// `count` output pixels of one row whose 3×3 windows lie inside the image. `step` is the
  /// input distance between neighbouring windows, `rowStride` between input rows.
  private static func interior3x3(
    _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int, _ step: Int,
    _ rowStride: Int, _ channels: Int, _ filter: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
    _ clamp: Clamp, _ slopes: UnsafePointer<Float>?
  ) {
    let r1 = rowStride
    let r2 = 2 * rowStride
    let c1 = channels
    let c2 = 2 * channels
    var c = 0
    while c < channels {
      // A last block that would run past the channels is shifted back to overlap the
      // previous one: recomputing a few channels is cheaper than a scalar tail.
      let cc = min(c, channels - 8)
      let w0 = filter.vector(at: cc), w1 = filter.vector(at: c1 + cc), w2 = filter.vector(at: c2 + cc)
      let w3 = filter.vector(at: 3 * c1 + cc), w4 = filter.vector(at: 4 * c1 + cc)
      let w5 = filter.vector(at: 5 * c1 + cc), w6 = filter.vector(at: 6 * c1 + cc)
      let w7 = filter.vector(at: 7 * c1 + cc), w8 = filter.vector(at: 8 * c1 + cc)
      let bv = bias.vector(at: cc)
      var x = input + cc
      var out = output + cc
      for _ in 0..<count {
        // Taps summed in filter order from zero, as the reference does.
        var acc = x.vector(at: 0) * w0 + Vector.zero
        acc = x.vector(at: c1) * w1 + acc
        acc = x.vector(at: c2) * w2 + acc
        acc = x.vector(at: r1) * w3 + acc
        acc = x.vector(at: r1 + c1) * w4 + acc
        acc = x.vector(at: r1 + c2) * w5 + acc
        acc = x.vector(at: r2) * w6 + acc
        acc = x.vector(at: r2 + c1) * w7 + acc
        acc = x.vector(at: r2 + c2) * w8 + acc
        out.store(activate(acc + bv, clamp, slopes, cc), at: 0)
        x += step
        out += channels
      }
      c += 8
    }
  }

  @inline(__always)
  private static func interior(
    _ window: UnsafePointer<Float>, _ tapOffsets: UnsafeMutablePointer<Int>, _ taps: Int,
    _ filter: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ channels: Int, _ clamp: Clamp,
    _ slopes: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>
  ) {
    var c = 0
    while c + 8 <= channels {
      var acc = Vector.zero
      for k in 0..<taps {
        acc = window.vector(at: tapOffsets[k] + c) * filter.vector(at: k * channels + c) + acc
      }
      out.store(activate(acc + bias.vector(at: c), clamp, slopes, c), at: c)
      c += 8
    }
    while c < channels {
      var acc: Float = 0
      for k in 0..<taps { acc = window[tapOffsets[k] + c] * filter[k * channels + c] + acc }
      let total = acc + bias[c]
      out[c] = slopes.map { Elementwise.prelu(clamp(total), $0[c]) } ?? clamp(total)
      c += 1
    }
  }

  /// One output pixel whose window crosses the border: only the taps inside the image.
  private static func border(
    _ g: ConvolutionGeometry, _ b: Int, _ originY: Int, _ originX: Int,
    _ filter: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: Clamp,
    _ slopes: UnsafePointer<Float>?, _ input: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>
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
          let x = input.vector(at: g.input.offset(b, originY + g.dilationHeight * fy, originX + g.dilationWidth * fx, c))
          acc = x * filter.vector(at: (fy * g.filterWidth + fx) * channels + c) + acc
        }
      }
      out.store(activate(acc + bias.vector(at: c), clamp, slopes, c), at: c)
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
      let total = acc + bias[c]
      out[c] = slopes.map { Elementwise.prelu(clamp(total), $0[c]) } ?? clamp(total)
      c += 1
    }
  }

  @inline(__always)
  private static func activate(
    _ acc: Vector, _ clamp: Clamp, _ slopes: UnsafePointer<Float>?, _ c: Int
  ) -> Vector {
    guard let slopes else { return clamp(acc) }
    return Elementwise.prelu(clamp(acc), slopes.vector(at: c))
  }
}
