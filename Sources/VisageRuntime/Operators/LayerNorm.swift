import VisageKernels

/// Layer normalization over the last dimension with a per-channel scale γ (input 1, a
/// constant), optionally writing its output with the last two dimensions swapped.
///
/// Not a TFLite builtin: `FusionPass.layerNorm` puts it in place of the ten operators
/// TFLite graphs spell it out in, and it computes the same values they compute; its
/// reference path runs those ten steps one by one.
public struct LayerNorm: Operator {
  /// The ε added to the variance.
  public var epsilon: Float
  /// What the output gets: nothing, or its last two dimensions swapped (a folded
  /// TRANSPOSE, `FusionPass.layerNormTranspose`).
  public var epilogue: Epilogue

  /// Creates the operator.
  public init(epsilon: Float, epilogue: Epilogue = .none) {
    self.epsilon = epsilon
    self.epilogue = epilogue
  }

  public var name: String { "LAYER_NORM" }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 2 else { throw .invalidOperator("\(name) takes two inputs, got \(inputs.count)") }
    guard !epilogue.addsResidual, epilogue.clamp.isNone, epilogue.slopes == nil else {
      throw .invalidOperator("\(name) can only transpose its output, not apply the epilogue \(epilogue)")
    }
    let x = inputs[0]
    guard x.rank >= 1, inputs[1].count == x[x.rank - 1] else {
      throw .invalidOperator("\(name) needs one γ per channel of \(x), got \(inputs[1])")
    }
    guard epilogue.transposesOutput else { return x }
    guard x.rank >= 2 else { throw .invalidOperator("\(name) cannot transpose rank \(x.rank)") }
    var dims = x.dimensions
    dims.swapAt(x.rank - 1, x.rank - 2)
    return Shape(dims)
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    _ = try context.constant(1, "\(name) γ")
    let dims = context.inputShapes[0].dimensions
    let channels = dims.last!
    let rows = context.inputShapes[0].count / channels
    let transposedRows = epilogue.transposesOutput ? dims[dims.count - 2] : nil
    let (input, gamma, output, epsilon) = (context.inputs[0], context.inputs[1], context.output, epsilon)
    if context.implementation == .reference {
      return {
        LayerNormalization.reference(
          input, rows: rows, channels: channels, gamma: gamma, epsilon: epsilon, output: output,
          transposedRows: transposedRows)
      }
    }
    // Rows go to threads; when transposing, rows of each group, in whole cache lines of
    // the transposed output.
    let parts = context.parts(
      of: transposedRows ?? rows, Work(.layerNorm, rows * channels), alignment: transposedRows == nil ? 1 : 16)
    return context.step(over: parts) { part in
      LayerNormalization.optimized(
        input, rows: rows, channels: channels, gamma: gamma, epsilon: epsilon, output: output,
        transposedRows: transposedRows, part: parts[part])
    }
  }
}
