/// Depthwise 2-D convolution in NHWC with [1, kh, kw, channels] filters.
///
/// The optimized kernel covers depth multiplier 1 (every depthwise layer in our models) with
/// eight channels per SIMD step; other multipliers run the reference.
public enum DepthwiseConvolution {
  /// Runs the optimized kernel, falling back to the reference for multipliers other than 1.
  public static func optimized(
    _ g: ConvolutionGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    guard g.output.channels == g.input.channels else {
      reference(g, input: input, filter: filter, bias: bias, clamp: clamp, output: output)
      return
    }
    let channels = g.input.channels
    let vectorEnd = channels & ~7
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        // Only filter rows whose input row exists; the rest would multiply zeros.
        let fyStart = max(0, (-originY + g.dilationHeight - 1) / g.dilationHeight)
        let fyEnd = min(
          g.filterHeight, (g.input.height - originY + g.dilationHeight - 1) / g.dilationHeight)
        for outX in 0..<g.output.width {
          let originX = outX * g.strideWidth - g.padLeft
          let fxStart = max(0, (-originX + g.dilationWidth - 1) / g.dilationWidth)
          let fxEnd = min(
            g.filterWidth, (g.input.width - originX + g.dilationWidth - 1) / g.dilationWidth)
          let out = output + g.output.offset(b, outY, outX, 0)
          var c = 0
          while c < vectorEnd {
            var acc = bias.vector(at: c)
            for fy in fyStart..<max(fyStart, fyEnd) {
              let inY = originY + g.dilationHeight * fy
              for fx in fxStart..<max(fxStart, fxEnd) {
                let inX = originX + g.dilationWidth * fx
                let x = input.vector(at: g.input.offset(b, inY, inX, c))
                let w = filter.vector(at: (fy * g.filterWidth + fx) * channels + c)
                acc = x * w + acc
              }
            }
            out.store(clamp(acc), at: c)
            c += 8
          }
          while c < channels {
            var acc = bias[c]
            for fy in fyStart..<max(fyStart, fyEnd) {
              let inY = originY + g.dilationHeight * fy
              for fx in fxStart..<max(fxStart, fxEnd) {
                let inX = originX + g.dilationWidth * fx
                acc =
                  input[g.input.offset(b, inY, inX, c)]
                  * filter[(fy * g.filterWidth + fx) * channels + c] + acc
              }
            }
            out[c] = clamp(acc)
            c += 1
          }
        }
      }
    }
  }
}
