import VisageKernels

/// TFLite's RESIZE_BILINEAR to a constant output size.
public struct ResizeBilinear: Operator {
  /// Output rows.
  public var height: Int
  /// Output columns.
  public var width: Int
  /// Coordinate mapping options.
  public var options: Resampling.Options

  /// Creates a resize to `height`×`width`.
  public init(height: Int, width: Int, options: Resampling.Options) {
    self.height = height
    self.width = width
    self.options = options
  }

  public var name: String { "RESIZE_BILINEAR" }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1, inputs[0].rank == 4 else {
      throw .invalidOperator("\(name) takes one rank-4 input, got \(inputs)")
    }
    guard height > 0, width > 0, height <= 1 << 16, width <= 1 << 16 else {
      throw .invalidOperator("\(name) size \(height)x\(width) must be in 1...65536")
    }
    // TFLite's Prepare refuses this pair: the source index could pass the last row.
    guard !(options.alignCorners && options.halfPixelCenters) else {
      throw .invalidOperator("\(name) cannot combine align_corners with half_pixel_centers")
    }
    let x = inputs[0]
    return [x[0], height, width, x[3]]
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let x = context.inputShapes[0]
    let source = NHWC(batch: x[0], height: x[1], width: x[2], channels: x[3])
    let target = NHWC(batch: x[0], height: height, width: width, channels: x[3])
    let input = context.inputs[0]
    let output = context.output
    let options = options
    if context.implementation == .reference {
      return { Resampling.reference(input: input, source, options: options, output: output, target) }
    }
    // Output rows go to threads.
    let parts = context.parts(of: target.batch * target.height, Work(.resize, target.count))
    return context.step(over: parts) { part in
      Resampling.optimized(input: input, source, options: options, output: output, target, rows: parts[part])
    }
  }
}
