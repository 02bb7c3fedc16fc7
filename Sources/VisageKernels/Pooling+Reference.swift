extension Pooling {
  /// TFLite's reference float max pool (reference_ops::MaxPool): each window is clipped to
  /// the input, so padding never wins the maximum.
  public static func reference(
    _ g: PoolingGeometry, input: UnsafePointer<Float>, clamp: Clamp,
    output: UnsafeMutablePointer<Float>
  ) {
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        for outX in 0..<g.output.width {
          for c in 0..<g.output.channels {
            let originX = outX * g.strideWidth - g.padLeft
            let originY = outY * g.strideHeight - g.padTop
            let fxStart = max(0, -originX)
            let fxEnd = min(g.filterWidth, g.input.width - originX)
            let fyStart = max(0, -originY)
            let fyEnd = min(g.filterHeight, g.input.height - originY)
            var maximum = -Float.greatestFiniteMagnitude
            for fy in fyStart..<max(fyStart, fyEnd) {
              for fx in fxStart..<max(fxStart, fxEnd) {
                maximum = max(maximum, input[g.input.offset(b, originY + fy, originX + fx, c)])
              }
            }
            output[g.output.offset(b, outY, outX, c)] = clamp(maximum)
          }
        }
      }
    }
  }
}
