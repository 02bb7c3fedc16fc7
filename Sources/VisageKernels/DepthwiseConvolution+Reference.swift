extension DepthwiseConvolution {
  /// TFLite's reference float depthwise convolution (reference_ops::DepthwiseConv).
  ///
  /// `filter` is [1, filter height, filter width, output channels]; output channel
  /// `c·multiplier + m` reads input channel `c`.
  public static func reference(
    _ g: ConvolutionGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
    bias: UnsafePointer<Float>?, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    let multiplier = g.output.channels / g.input.channels
    let filterShape = NHWC(
      batch: 1, height: g.filterHeight, width: g.filterWidth, channels: g.output.channels)
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        for outX in 0..<g.output.width {
          let originX = outX * g.strideWidth - g.padLeft
          for inC in 0..<g.input.channels {
            for m in 0..<multiplier {
              let outC = m + inC * multiplier
              var total: Float = 0
              for fy in 0..<g.filterHeight {
                let inY = originY + g.dilationHeight * fy
                for fx in 0..<g.filterWidth {
                  let inX = originX + g.dilationWidth * fx
                  guard inY >= 0, inY < g.input.height, inX >= 0, inX < g.input.width else {
                    continue
                  }
                  total +=
                    input[g.input.offset(b, inY, inX, inC)]
                    * filter[filterShape.offset(0, fy, fx, outC)]
                }
              }
              let biasValue = bias?[outC] ?? 0
              output[g.output.offset(b, outY, outX, outC)] = clamp(total + biasValue)
            }
          }
        }
      }
    }
  }
}
