import VisageKernels

/// TFLite's TRANSPOSE: output dimension i is input dimension `permutation[i]`.
public struct Transpose: Operator {
  /// A permutation of the input's dimensions.
  public var permutation: [Int]
  /// What the output gets after the copy: nothing as TFLite defines the operator, or a
  /// residual (a following ADD folded in by `FusionPass.transposeAdd`; only when the last
  /// two dimensions swap), which is then the node's second input, of the output's shape.
  public var epilogue: Epilogue

  /// Creates a transpose by `permutation`, finished by `epilogue` (by default nothing).
  public init(permutation: [Int], epilogue: Epilogue = .none) {
    self.permutation = permutation
    self.epilogue = epilogue
  }

  public var name: String { "TRANSPOSE" }

  /// Whether the permutation only swaps the last two dimensions.
  public var swapsLastTwo: Bool {
    let rank = permutation.count
    return rank >= 2 && permutation == Array(0..<(rank - 2)) + [rank - 1, rank - 2]
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let addsResidual = epilogue.addsResidual
    guard inputs.count == (addsResidual ? 2 : 1) else {
      throw .invalidOperator("\(name) takes \(addsResidual ? 2 : 1) inputs, got \(inputs.count)")
    }
    guard epilogue.clamp.isNone, epilogue.slopes == nil, !epilogue.transposesOutput else {
      throw .invalidOperator("\(name) can only add a residual, not apply the epilogue \(epilogue)")
    }
    let x = inputs[0]
    guard permutation.count == x.rank, permutation.sorted() == Array(0..<x.rank) else {
      throw .invalidOperator("\(name) permutation \(permutation) is not a permutation of rank \(x.rank)")
    }
    let shape = Shape(permutation.map { x[$0] })
    if addsResidual {
      guard swapsLastTwo, inputs[1] == shape else {
        throw .invalidOperator("\(name) adds a residual only when swapping the last two dimensions into its shape")
      }
    }
    return shape
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let dims = context.inputShapes[0].dimensions
    let input = context.inputs[0]
    let output = context.output
    let bound = Epilogue.Bound(residual: epilogue.addsResidual ? context.inputs[1] : nil)
    if swapsLastTwo && context.implementation != .reference {
      let (rows, columns) = (dims[dims.count - 2], dims[dims.count - 1])
      let batches = dims.dropLast(2).reduce(1, *)
      // Input rows go to threads, in whole cache lines of the output.
      let parts = context.parts(of: rows, Work(.transpose, batches * rows * columns), alignment: 16)
      return context.step(over: parts) { part in
        Layout.transposeLastTwo(
          input, batches: batches, rows: rows, columns: columns, epilogue: bound, output: output, part: parts[part])
      }
    }
    let inputStrides = Layout.strides(dims)
    let strides = permutation.map { inputStrides[$0] }
    let shape = context.outputShape.dimensions
    let count = context.outputShape.count
    // The copy as TFLite runs it, then a folded ADD as its own pass.
    return {
      Layout.stridedCopy(input, base: 0, inputStrides: strides, outputShape: shape, output: output)
      bound.applySeparately(to: output, rows: 1, channels: count)
    }
  }
}
