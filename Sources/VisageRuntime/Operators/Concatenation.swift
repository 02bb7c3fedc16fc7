import VisageKernels

/// TFLite's CONCATENATION along one axis.
public struct Concatenation: Operator {
  /// The axis to join along, possibly negative.
  public var axis: Int

  /// Creates a concatenation along `axis`.
  public init(axis: Int) { self.axis = axis }

  public var name: String { "CONCATENATION" }

  func resolvedAxis(_ inputs: [Shape]) throws(RuntimeError) -> Int {
    guard let first = inputs.first else { throw .invalidOperator("\(name) needs at least one input") }
    let a = axis < 0 ? axis + first.rank : axis
    guard a >= 0, a < first.rank else {
      throw .invalidOperator("\(name) axis \(axis) is out of range for rank \(first.rank)")
    }
    for shape in inputs {
      guard shape.rank == first.rank,
        (0..<first.rank).allSatisfy({ $0 == a || shape[$0] == first[$0] })
      else {
        throw .invalidOperator("\(name) along axis \(axis) cannot join \(first) and \(shape)")
      }
    }
    return a
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let a = try resolvedAxis(inputs)
    var dims = inputs[0].dimensions
    dims[a] = inputs.reduce(0) { $0 + $1[a] }
    return Shape(dims)
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let a = try resolvedAxis(context.inputShapes)
    // Labelled as `concatenate` takes them: an unlabelled array was converted on every run.
    let parts = zip(context.inputs, context.inputShapes).map { (pointer: $0, shape: $1.dimensions) }
    let output = context.output
    return { Layout.concatenate(parts, axis: a, output: output) }
  }
}
