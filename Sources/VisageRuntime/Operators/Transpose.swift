import VisageKernels

/// TFLite's TRANSPOSE: output dimension i is input dimension `permutation[i]`.
public struct Transpose: Operator {
  /// A permutation of the input's dimensions.
  public var permutation: [Int]
  /// Whether a second input of the output's shape is added to the result (a following ADD
  /// folded in by `Graph.fusingLayerNorms()`; only when the last two dimensions swap).
  public var addsResidual: Bool

  /// Creates a transpose by `permutation`.
  public init(permutation: [Int], addsResidual: Bool = false) {
    self.permutation = permutation
    self.addsResidual = addsResidual
  }

  public var name: String { "TRANSPOSE" }

  /// Whether the permutation only swaps the last two dimensions.
  public var swapsLastTwo: Bool {
    let rank = permutation.count
    return rank >= 2 && permutation == Array(0..<(rank - 2)) + [rank - 1, rank - 2]
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == (addsResidual ? 2 : 1) else {
      throw .invalidOperator("\(name) takes \(addsResidual ? 2 : 1) inputs, got \(inputs.count)")
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
    if swapsLastTwo && context.implementation != .reference {
      let (rows, columns) = (dims[dims.count - 2], dims[dims.count - 1])
      let batches = dims.dropLast(2).reduce(1, *)
      let residual = addsResidual ? context.inputs[1] : nil
      // Input rows go to threads, in whole cache lines of the output; about 0.4 ns a value.
      let parts = context.parts(of: rows, nanoseconds: 0.4 * Double(batches * rows * columns), alignment: 16)
      return context.step(over: parts) { part in
        Layout.transposeLastTwo(
          input, batches: batches, rows: rows, columns: columns, residual: residual, output: output, part: parts[part])
      }
    }
    let inputStrides = Layout.strides(dims)
    let strides = permutation.map { inputStrides[$0] }
    let shape = context.outputShape.dimensions
    if addsResidual {
      let residual = context.inputs[1]
      let count = context.outputShape.count
      return {
        Layout.stridedCopy(input, base: 0, inputStrides: strides, outputShape: shape, output: output)
        for i in 0..<count { output[i] = output[i] + residual[i] }
      }
    }
    return {
      Layout.stridedCopy(input, base: 0, inputStrides: strides, outputShape: shape, output: output)
    }
  }
}
