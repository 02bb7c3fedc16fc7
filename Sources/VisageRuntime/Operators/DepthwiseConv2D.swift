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
  /// The fused activation.
  public var clamp: Clamp
  /// Per-output-channel slopes of a PRELU fused after the activation, if any.
  public var preluSlopes: [Float]?

  /// Creates a depthwise convolution; the multiplier follows from the filter's shape.
  public init(
    padding: Padding, strideHeight: Int, strideWidth: Int, dilationHeight: Int = 1,
    dilationWidth: Int = 1, clamp: Clamp = .none, preluSlopes: [Float]? = nil
  ) {
    self.padding = padding
    self.strideHeight = strideHeight
    self.strideWidth = strideWidth
    self.dilationHeight = dilationHeight
    self.dilationWidth = dilationWidth
    self.clamp = clamp
    self.preluSlopes = preluSlopes
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
    if let preluSlopes, preluSlopes.count != g.output.channels {
      throw .invalidOperator("\(name) has \(preluSlopes.count) PReLU slopes for \(g.output.channels) channels")
    }
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
    let clamp = clamp
    let hasBias = context.inputShapes.count == 3
    switch context.implementation {
    case .reference:
      let bias = hasBias ? context.inputs[2] : nil
      let slopes = preluSlopes
      return {
        DepthwiseConvolution.reference(
          g, input: input, filter: filter, bias: bias, clamp: clamp, output: output)
        if let slopes { applyPReLU(slopes, to: output, count: g.output.count) }
      }
    case .optimized, .blas:
      // The optimized kernel always reads a bias; give it zeros when the model has none.
      let zeros = hasBias ? nil : ConstantBuffer(zeros: g.output.channels)
      let bias = zeros.map { UnsafePointer($0.pointer) } ?? context.inputs[2]
      let slopes = preluSlopes.map(ConstantBuffer.init(copying:))
      let slopesPointer = slopes.map { UnsafePointer($0.pointer) }
      // The row of zeros the 3×3 kernel reads above and below the image, made once.
      let zeroRow = ConstantBuffer(zeros: DepthwiseConvolution.zeroCount(g))
      let zeroPointer = UnsafePointer(zeroRow.pointer)
      let rows = g.output.batch * g.output.height
      let tasks = min(rows, 4 * (context.pool?.threadCount ?? 1))
      if let pool = context.pool, tasks > 1, DepthwiseConvolution.splitsRows(g),
        g.output.count * g.filterHeight * g.filterWidth >= ConvolutionPlan.parallelMinimum
      {
        // Output rows shared out over the pool, in about four parts per thread.
        let body: (Int) -> Void = { task in
          withExtendedLifetime((zeros, slopes, zeroRow)) {
            DepthwiseConvolution.optimized(
              g, input: input, filter: filter, bias: bias, clamp: clamp, slopes: slopesPointer, output: output,
              rows: ConvolutionPlan.part(task, of: tasks, rows), zeros: zeroPointer)
          }
        }
        return { pool.run(tasks, body) }
      }
      return {
        withExtendedLifetime((zeros, slopes, zeroRow)) {
          DepthwiseConvolution.optimized(
            g, input: input, filter: filter, bias: bias, clamp: clamp, slopes: slopesPointer,
            output: output, zeros: zeroPointer)
        }
      }
    }
  }
}
