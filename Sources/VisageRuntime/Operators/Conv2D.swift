import VisageKernels

/// TFLite's CONV_2D: NHWC input, OHWI filter, optional bias, fused clamp.
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
  /// The fused activation.
  public var clamp: Clamp
  /// Per-output-channel slopes of a PRELU fused after the activation, if any.
  public var preluSlopes: [Float]?
  /// Whether a following ADD was fused in: the node's last input is then a tensor of the
  /// output's shape, added after the bias and before the clamp. It may have fewer channels
  /// (an ADD of a zero PAD of the channels, fused too): the rest get zeros.
  public var addsResidual = false

  /// Creates a convolution; strides and dilations must be positive.
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

  public var name: String { "CONV_2D" }

  /// The kernel geometry for these input shapes, or an error saying what does not fit.
  public func geometry(_ inputs: [Shape]) throws(RuntimeError) -> ConvolutionGeometry {
    let inputs = addsResidual ? Array(inputs.dropLast()) : inputs
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
    if let preluSlopes, preluSlopes.count != g.output.channels {
      throw .invalidOperator("\(name) has \(preluSlopes.count) PReLU slopes for \(g.output.channels) channels")
    }
    let shape: Shape = [g.output.batch, g.output.height, g.output.width, g.output.channels]
    if addsResidual, let residual = inputs.last,
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
    let bias = context.inputShapes.count - (addsResidual ? 1 : 0) == 3 ? try context.constant(2, "\(name) bias") : nil
    let residual = addsResidual ? context.inputs.last : nil
    let residualChannels = addsResidual ? context.inputShapes.last![3] : g.output.channels
    let input = context.inputs[0]
    let output = context.output
    let clamp = clamp
    switch context.implementation {
    case .reference:
      let filterPointer = context.inputs[1]
      let biasPointer = bias == nil ? nil : context.inputs[2]
      let slopes = preluSlopes
      return {
        Convolution.reference(
          g, input: input, filter: filterPointer, bias: biasPointer,
          clamp: residual == nil ? clamp : .none, output: output)
        if let residual {
          for i in 0..<g.output.count {
            let (pixel, channel) = i.quotientAndRemainder(dividingBy: g.output.channels)
            let extra = channel < residualChannels ? residual[pixel * residualChannels + channel] : 0
            output[i] = clamp(output[i] + extra)
          }
        }
        if let slopes { applyPReLU(slopes, to: output, count: g.output.count) }
      }
    case .optimized, .blas:
      let backend: ConvolutionPlan.Backend = context.implementation == .blas ? .blas : .packed
      let plan = filter.values.withUnsafeBufferPointer { filterValues in
        if let bias {
          return bias.values.withUnsafeBufferPointer { biasValues in
            preluSlopes.withUnsafeBufferPointerIfPresent {
              ConvolutionPlan(g, filter: filterValues, bias: biasValues, clamp: clamp, slopes: $0, backend: backend)
            }
          }
        }
        return preluSlopes.withUnsafeBufferPointerIfPresent {
          ConvolutionPlan(g, filter: filterValues, bias: nil, clamp: clamp, slopes: $0, backend: backend)
        }
      }
      return plan.step(
        input: input, output: output, residual: residual, residualChannels: residualChannels, pool: context.pool)
    }
  }
}

/// A PRELU fused after a reference convolution, applied the way TFLite's reference PRELU
/// would have applied it to the convolution's output.
func applyPReLU(_ slopes: [Float], to output: UnsafeMutablePointer<Float>, count: Int) {
  for i in 0..<count {
    let x = output[i]
    output[i] = x >= 0 ? x : x * slopes[i % slopes.count]
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
