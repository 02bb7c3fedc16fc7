import VisageKernels

/// TFLite's MAX_POOL_2D.
public struct MaxPool2D: Operator {
  /// How the window treats the border.
  public var padding: Padding
  /// Step between output rows.
  public var strideHeight: Int
  /// Step between output columns.
  public var strideWidth: Int
  /// Window rows.
  public var filterHeight: Int
  /// Window columns.
  public var filterWidth: Int
  /// The fused activation.
  public var clamp: Clamp

  /// Creates a max pool; sizes and strides must be positive.
  public init(
    padding: Padding, strideHeight: Int, strideWidth: Int, filterHeight: Int, filterWidth: Int,
    clamp: Clamp = .none
  ) {
    self.padding = padding
    self.strideHeight = strideHeight
    self.strideWidth = strideWidth
    self.filterHeight = filterHeight
    self.filterWidth = filterWidth
    self.clamp = clamp
  }

  public var name: String { "MAX_POOL_2D" }

  func geometry(_ inputs: [Shape]) throws(RuntimeError) -> PoolingGeometry {
    guard inputs.count == 1, inputs[0].rank == 4 else {
      throw .invalidOperator("\(name) takes one rank-4 input, got \(inputs)")
    }
    try checkWindow(name, strideHeight, strideWidth, 1, 1, filterHeight, filterWidth)
    let x = inputs[0]
    let g = PoolingGeometry(
      input: NHWC(batch: x[0], height: x[1], width: x[2], channels: x[3]),
      filterHeight: filterHeight, filterWidth: filterWidth, strideHeight: strideHeight,
      strideWidth: strideWidth, padding: padding)
    guard g.output.height > 0, g.output.width > 0 else {
      throw .invalidOperator("\(name) window \(filterHeight)x\(filterWidth) is larger than the input \(x)")
    }
    return g
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let g = try geometry(inputs)
    return [g.output.batch, g.output.height, g.output.width, g.output.channels]
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let g = try geometry(context.inputShapes)
    let input = context.inputs[0]
    let output = context.output
    let clamp = clamp
    if context.implementation == .reference {
      return { Pooling.reference(g, input: input, clamp: clamp, output: output) }
    }
    // Output rows go to threads.
    let rows = g.output.batch * g.output.height
    let parts = context.parts(of: rows, Work(.pooling, g.output.count * g.filterHeight * g.filterWidth))
    return context.step(over: parts) { part in
      Pooling.optimized(g, input: input, clamp: clamp, output: output, rows: parts[part])
    }
  }
}
