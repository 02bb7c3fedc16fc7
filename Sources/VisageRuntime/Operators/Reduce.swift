import VisageKernels

/// TFLite's MEAN and SUM over a constant set of axes.
public struct Reduce: Operator {
  /// Sum or mean.
  public var kind: Reduction.Kind
  /// Axes to reduce, possibly negative (counted from the end), possibly repeated.
  public var axes: [Int]
  /// Keep reduced dimensions as size 1 rather than removing them.
  public var keepDimensions: Bool

  /// Creates a reduction over `axes`.
  public init(_ kind: Reduction.Kind, axes: [Int], keepDimensions: Bool) {
    self.kind = kind
    self.axes = axes
    self.keepDimensions = keepDimensions
  }

  public var name: String { kind == .mean ? "MEAN" : "SUM" }

  /// The distinct, non-negative axes for an input of `rank`.
  func resolvedAxes(rank: Int) throws(RuntimeError) -> [Int] {
    var resolved: [Int] = []
    for axis in axes {
      let a = axis < 0 ? axis + rank : axis
      guard a >= 0, a < rank else {
        throw .invalidOperator("\(name) axis \(axis) is out of range for rank \(rank)")
      }
      if !resolved.contains(a) { resolved.append(a) }
    }
    return resolved.sorted()
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    let x = inputs[0]
    let reduced = try resolvedAxes(rank: x.rank)
    var dims: [Int] = []
    for d in 0..<x.rank {
      if !reduced.contains(d) {
        dims.append(x[d])
      } else if keepDimensions {
        dims.append(1)
      }
    }
    return Shape(dims)
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let shape = context.inputShapes[0].dimensions
    let reduced = try resolvedAxes(rank: shape.count)
    let input = context.inputs[0]
    let output = context.output
    let kind = kind
    if reduced.isEmpty {
      let count = context.outputShape.count
      return { output.update(from: input, count: count) }
    }
    if context.implementation == .reference {
      return { Reduction.reference(kind, input, shape: shape, axes: reduced, output: output) }
    }
    return { Reduction.optimized(kind, input, shape: shape, axes: reduced, output: output) }
  }
}
