import VisageKernels

/// A value-by-value operator: RELU, LOGISTIC, NEG, SQRT, RSQRT and friends.
public struct Unary: Operator {
  /// The function applied to each value.
  public var function: UnaryFunction

  /// Creates the operator for `function`.
  public init(_ function: UnaryFunction) { self.function = function }

  public var name: String { function.rawValue }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    return inputs[0]
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let input = context.inputs[0]
    let output = context.output
    let count = context.outputShape.count
    let function = function
    if context.implementation == .reference {
      return { Elementwise.reference(function, input, count: count, output: output) }
    }
    return { Elementwise.optimized(function, input, count: count, output: output) }
  }
}
