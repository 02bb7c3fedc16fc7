/// 2-D pooling over NHWC data.
public enum Pooling {
  /// Max pool with eight channels per SIMD step and a scalar tail.
  public static func maxOptimized(
    _ g: PoolingGeometry, input: UnsafePointer<Float>, clamp: Clamp,
    output: UnsafeMutablePointer<Float>
  ) {
    let channels = g.input.channels
    let vectorEnd = channels & ~7
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        let fyStart = max(0, -originY)
        let fyEnd = max(fyStart, min(g.filterHeight, g.input.height - originY))
        for outX in 0..<g.output.width {
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
  }
}
