import VisageKernels

/// TFLite's CONV_2D: NHWC input, OHWI filter, optional bias, fused clamp (the epilogue).
public struct Conv2D: Operator {
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
  /// What the output gets after the bias: TFLite's fused activation as the clamp, plus
  /// whatever fusion folded in (a residual ADD, a RELU, a PRELU). With a residual, the
  /// node's last input is a tensor of the output's shape; it may have fewer channels (an ADD
  /// of a zero PAD of the channels, folded too): the rest get zeros.
  public var epilogue: Epilogue

  /// Creates a convolution with TFLite's fused activation `clamp`; strides and dilations
  /// must be positive.
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

  public var name: String { "CONV_2D" }

  /// The kernel geometry for these input shapes, or an error saying what does not fit.
  public func geometry(_ inputs: [Shape]) throws(RuntimeError) -> ConvolutionGeometry {
    let inputs = epilogue.addsResidual ? Array(inputs.dropLast()) : inputs
    guard inputs.count == 2 || inputs.count == 3 else {
      throw .invalidOperator("\(name) takes input, filter and optional bias, got \(inputs.count) inputs")
    }
    let x = inputs[0]
    let filter = inputs[1]
    guard x.rank == 4, filter.rank == 4 else {
      throw .invalidOperator("\(name) needs a rank-4 input and filter, got \(x) and \(filter)")
    }
    guard filter[3] == x[3] else {
      throw .invalidOperator("\(name) filter \(filter) does not match input channels of \(x)")
    }
    if inputs.count == 3, inputs[2].count != filter[0] {
      throw .invalidOperator("\(name) bias \(inputs[2]) does not match \(filter[0]) output channels")
    }
    try checkWindow(
      name, strideHeight, strideWidth, dilationHeight, dilationWidth, filter[1], filter[2])
    let g = ConvolutionGeometry(
      input: NHWC(batch: x[0], height: x[1], width: x[2], channels: x[3]),
      outputChannels: filter[0], filterHeight: filter[1], filterWidth: filter[2],
      strideHeight: strideHeight, strideWidth: strideWidth, dilationHeight: dilationHeight,
      dilationWidth: dilationWidth, padding: padding)
    guard g.output.height > 0, g.output.width > 0 else {
      throw .invalidOperator("\(name) window \(filter) is larger than the input \(x)")
    }
    return g
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let g = try geometry(inputs)
    try checkEpilogue(name, epilogue, channels: g.output.channels)
    let shape: Shape = [g.output.batch, g.output.height, g.output.width, g.output.channels]
    if epilogue.addsResidual, let residual = inputs.last,
      residual.rank != 4 || residual.dimensions.dropLast() != shape.dimensions.dropLast() || residual[3] > shape[3]
    {
      throw .invalidOperator("\(name) residual \(residual) does not match its output \(shape)")
    }
    return shape
  }

  public func multiplyAdds(_ inputs: [Shape]) -> Int {
    (try? geometry(inputs).multiplyAdds) ?? 0
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let g = try geometry(context.inputShapes)
    let filter = try context.constant(1, "\(name) filter")
    let hasBias = context.inputShapes.count - (epilogue.addsResidual ? 1 : 0) == 3
    let bias = hasBias ? context.inputs[2] : nil
    if hasBias { _ = try context.constant(2, "\(name) bias") }
    let residual = epilogue.addsResidual ? context.inputs.last : nil
    let residualChannels = epilogue.addsResidual ? context.inputShapes.last![3] : g.output.channels
    let slopes = epilogue.slopes.map(ConstantBuffer.init(copying:))
    let bound = Epilogue.Bound(
      bias: bias, residual: residual, residualChannels: residualChannels, clamp: epilogue.clamp,
      slopes: slopes.map { UnsafePointer($0.pointer) })
    let (input, output) = (context.inputs[0], context.output)
    switch context.implementation {
    case .reference:
      // The convolution as TFLite runs it, then each folded step as its own pass.
      let filterPointer = context.inputs[1]
      return {
        withExtendedLifetime(slopes) {
          Convolution.reference(
            g, input: input, filter: filterPointer, bias: bias, clamp: bound.operatorClamp, output: output)
          bound.applySeparately(to: output, rows: g.output.count / g.output.channels, channels: g.output.channels)
        }
      }
    case .optimized, .blas:
      let backend: ConvolutionPlan.Backend = context.implementation == .blas ? .blas : .packed
      let plan = filter.values.withUnsafeBufferPointer {
        ConvolutionPlan(g, filter: $0, epilogue: bound, backend: backend)
      }
      return plan.step(
        input: input, output: output, residual: residual, residualChannels: residualChannels,
        pool: context.pool(for: Work(.convolution, g.multiplyAdds)),
        partsPerThread: Work.Kind.convolution.partsPerThread,
        fillsInParallel: context.shares(Work(.paddedCopy, g.input.count)))
    }
  }
}

/// Rejects an epilogue step the operator cannot apply, or PReLU slopes of the wrong count.
func checkEpilogue(
  _ name: String, _ epilogue: Epilogue, channels: Int, allowsResidual: Bool = true
) throws(RuntimeError) {
  if let slopes = epilogue.slopes, slopes.count != channels {
    throw .invalidOperator("\(name) has \(slopes.count) PReLU slopes for \(channels) channels")
  }
  guard !epilogue.transposesOutput, allowsResidual || !epilogue.addsResidual else {
    throw .invalidOperator("\(name) cannot apply the epilogue \(epilogue)")
  }
}

/// Rejects non-positive strides, dilations and filter sizes before any arithmetic uses them.
func checkWindow(
  _ name: String, _ strideHeight: Int, _ strideWidth: Int, _ dilationHeight: Int,
  _ dilationWidth: Int, _ filterHeight: Int, _ filterWidth: Int
) throws(RuntimeError) {
  let values = [strideHeight, strideWidth, dilationHeight, dilationWidth, filterHeight, filterWidth]
  guard values.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }) else {
    throw .invalidOperator(
      "\(name) needs strides, dilations and filter sizes in 1...65536, got strides "
        + "\(strideHeight)x\(strideWidth), dilations \(dilationHeight)x\(dilationWidth), "
        + "filter \(filterHeight)x\(filterWidth)")
  }
}
