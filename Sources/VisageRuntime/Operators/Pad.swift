import VisageKernels

/// TFLite's PAD (zeros) and PADV2 (a constant value).
public struct Pad: Operator {
  /// (before, after) for each dimension of the input.
  public var paddings: [(before: Int, after: Int)]
  /// The value written into the new positions.
  public var value: Float

  /// Creates a pad; every amount must be non-negative.
  public init(paddings: [(before: Int, after: Int)], value: Float = 0) {
    self.paddings = paddings
    self.value = value
  }

  public var name: String { "PAD" }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    let x = inputs[0]
    guard paddings.count == x.rank else {
      throw .invalidOperator("\(name) has \(paddings.count) paddings for an input of rank \(x.rank)")
    }
    guard paddings.allSatisfy({ $0.before >= 0 && $0.after >= 0 && $0.before + $0.after <= 1 << 20 })
    else {
      throw .invalidOperator("\(name) paddings must be non-negative and moderate, got \(paddings)")
    }
    return Shape(zip(x.dimensions, paddings).map { $0 + $1.before + $1.after })
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let padding = Layout.PaddedCopy(shape: context.inputShapes[0].dimensions, paddings: paddings)
    let (input, output, value) = (context.inputs[0], context.output, value)
    return { padding(input, value: value, output: output) }
  }
}
