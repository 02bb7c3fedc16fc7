import VisageKernels

/// TFLite's TRANSPOSE: output dimension i is input dimension `permutation[i]`.
public struct Transpose: Operator {
  /// A permutation of the input's dimensions.
  public var permutation: [Int]

  /// Creates a transpose by `permutation`.
  public init(permutation: [Int]) { self.permutation = permutation }

  public var name: String { "TRANSPOSE" }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    let x = inputs[0]
    guard permutation.count == x.rank, permutation.sorted() == Array(0..<x.rank) else {
      throw .invalidOperator("\(name) permutation \(permutation) is not a permutation of rank \(x.rank)")
    }
    return Shape(permutation.map { x[$0] })
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let inputStrides = Layout.strides(context.inputShapes[0].dimensions)
    let strides = permutation.map { inputStrides[$0] }
    let shape = context.outputShape.dimensions
    let input = context.inputs[0]
    let output = context.output
    return {
      Layout.stridedCopy(input, base: 0, inputStrides: strides, outputShape: shape, output: output)
    }
  }
}
