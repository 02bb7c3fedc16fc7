extension Convolution {
  /// TFLite's reference float convolution (reference_ops::Conv), loop for loop.
  ///
  /// `filter` is OHWI: [output channels, filter height, filter width, input channels].
  public static func reference(
    _ g: ConvolutionGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
    bias: UnsafePointer<Float>?, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    let filterShape = NHWC(
      batch: g.output.channels, height: g.filterHeight, width: g.filterWidth,
      channels: g.input.channels)
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        for outX in 0..<g.output.width {
          let originX = outX * g.strideWidth - g.padLeft
          for outC in 0..<g.output.channels {
            var total: Float = 0
            for fy in 0..<g.filterHeight {
              let inY = originY + g.dilationHeight * fy
              for fx in 0..<g.filterWidth {
                let inX = originX + g.dilationWidth * fx
                // Zero padding: taps outside the image contribute nothing.
                guard inY >= 0, inY < g.input.height, inX >= 0, inX < g.input.width else {
                  continue
                }
                for inC in 0..<g.input.channels {
                  total +=
                    input[g.input.offset(b, inY, inX, inC)]
                    * filter[filterShape.offset(outC, fy, fx, inC)]
                }
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
