import VisageKernels

/// TFLite's DEPTHWISE_CONV_2D: one filter per input channel (times a depth multiplier).
public struct DepthwiseConv2D: Operator {
  /// How the window treats the border.
  public var padding: Padding
  /// Step between output rows.
  public var strideHeight: Int
  /// Step between output columns.
  public var strideWidth: Int
  /// Step between filter taps along rows.
  public var dilationHeight: Int
  /// Step between filter taps along columns.
  public var dilationWidth: Int
  /// What the output gets after the bias: TFLite's fused activation as the clamp, plus a
  /// folded RELU or PRELU (no residual).
  public var epilogue: Epilogue

  /// Creates a depthwise convolution with TFLite's fused activation `clamp`; the multiplier
  /// follows from the filter's shape.
  public init(
    padding: Padding, strideHeight: Int, strideWidth: Int, dilationHeight: Int = 1,
    dilationWidth: Int = 1, clamp: Clamp = .none
  ) {
    self.padding = padding
    self.strideHeight = strideHeight
    self.strideWidth = strideWidth
    self.dilationHeight = dilationHeight
    self.dilationWidth = dilationWidth
    self.epilogue = Epilogue(clamp: clamp)
  }

  public var name: String { "DEPTHWISE_CONV_2D" }

  /// The kernel geometry for these input shapes, or an error saying what does not fit.
  public func geometry(_ inputs: [Shape]) throws(RuntimeError) -> ConvolutionGeometry {
    guard inputs.count == 2 || inputs.count == 3 else {
      throw .invalidOperator("\(name) takes input, filter and optional bias, got \(inputs.count) inputs")
    }
    let x = inputs[0]
    let filter = inputs[1]
    guard x.rank == 4, filter.rank == 4, filter[0] == 1 else {
      throw .invalidOperator("\(name) needs a rank-4 input and a [1, h, w, c] filter, got \(x) and \(filter)")
    }
    guard x[3] > 0, filter[3] % x[3] == 0 else {
      throw .invalidOperator("\(name) filter channels \(filter[3]) are not a multiple of input channels \(x[3])")
    }
    if inputs.count == 3, inputs[2].count != filter[3] {
      throw .invalidOperator("\(name) bias \(inputs[2]) does not match \(filter[3]) output channels")
    }
    try checkWindow(
      name, strideHeight, strideWidth, dilationHeight, dilationWidth, filter[1], filter[2])
    let g = ConvolutionGeometry(
      input: NHWC(batch: x[0], height: x[1], width: x[2], channels: x[3]),
      outputChannels: filter[3], filterHeight: filter[1], filterWidth: filter[2],
      strideHeight: strideHeight, strideWidth: strideWidth, dilationHeight: dilationHeight,
      dilationWidth: dilationWidth, padding: padding)
    guard g.output.height > 0, g.output.width > 0 else {
      throw .invalidOperator("\(name) window \(filter) is larger than the input \(x)")
    }
    return g
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let g = try geometry(inputs)
    try checkEpilogue(name, epilogue, channels: g.output.channels, allowsResidual: false)
    return [g.output.batch, g.output.height, g.output.width, g.output.channels]
  }

  public func multiplyAdds(_ inputs: [Shape]) -> Int {
    guard let g = try? geometry(inputs) else { return 0 }
    return g.output.count * g.filterHeight * g.filterWidth
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let g = try geometry(context.inputShapes)
    _ = try context.constant(1, "\(name) filter")
    let input = context.inputs[0]
    let filter = context.inputs[1]
    let output = context.output
    let hasBias = context.inputShapes.count == 3
    let slopes = epilogue.slopes.map(ConstantBuffer.init(copying:))
    let slopesPointer = slopes.map { UnsafePointer($0.pointer) }
    if context.implementation == .reference {
      // The convolution as TFLite runs it, then a folded PRELU as its own pass.
      let bound = Epilogue.Bound(bias: hasBias ? context.inputs[2] : nil, clamp: epilogue.clamp, slopes: slopesPointer)
      return {
        withExtendedLifetime(slopes) {
          DepthwiseConvolution.reference(
            g, input: input, filter: filter, bias: bound.bias, clamp: bound.operatorClamp, output: output)
          bound.applySeparately(to: output, rows: g.output.count / g.output.channels, channels: g.output.channels)
        }
      }
    }
    // The optimized kernel always reads a bias; give it zeros when the model has none.
    let zeros = hasBias ? nil : ConstantBuffer(zeros: g.output.channels)
    let bias = zeros.map { UnsafePointer($0.pointer) } ?? context.inputs[2]
    let bound = Epilogue.Bound(bias: bias, clamp: epilogue.clamp, slopes: slopesPointer)
    // The row of zeros the 3×3 kernel reads above and below the image, made once.
    let zeroRow = ConstantBuffer(zeros: DepthwiseConvolution.zeroCount(g))
    let zeroPointer = UnsafePointer(zeroRow.pointer)
    // Output rows go to threads, when the kernel can compute any range of them alone.
    let rows = g.output.batch * g.output.height
    let work = Work(.convolution, g.output.count * g.filterHeight * g.filterWidth)
    let parts = DepthwiseConvolution.splitsRows(g) ? context.parts(of: rows, work) : [0..<rows]
    return context.step(over: parts) { part in
      withExtendedLifetime((zeros, slopes, zeroRow)) {
        DepthwiseConvolution.optimized(
          g, input: input, filter: filter, epilogue: bound, output: output, rows: parts[part], zeros: zeroPointer)
      }
    }
  }
}
