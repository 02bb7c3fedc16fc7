import VisageKernels

/// TFLite's RESHAPE: the same values under a new shape (one dimension may be -1).
public struct Reshape: Operator {
  /// The requested shape; a -1 stands for whatever makes the counts agree.
  public var newShape: [Int]

  /// Creates a reshape to `newShape`.
  public init(newShape: [Int]) { self.newShape = newShape }

  public var name: String { "RESHAPE" }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    let count = inputs[0].count
    let unknown = newShape.indices.filter { newShape[$0] == -1 }
    guard unknown.count <= 1, newShape.allSatisfy({ $0 == -1 || $0 >= 0 }) else {
      throw .invalidOperator("\(name) shape \(newShape) may hold one -1 and otherwise sizes >= 0")
    }
    var dims = newShape
    let known = newShape.filter { $0 != -1 }.reduce(1) { $0.multipliedReportingOverflow(by: $1).partialValue }
    if let u = unknown.first {
      guard known > 0, count % known == 0 else {
        throw .invalidOperator("\(name) cannot reshape \(inputs[0]) to \(newShape)")
      }
      dims[u] = count / known
    }
    guard Shape(dims).checkedCount == count else {
      throw .invalidOperator("\(name) cannot reshape \(inputs[0]) (\(count) values) to \(newShape)")
    }
    return Shape(dims)
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let input = context.inputs[0]
    let output = context.output
    let count = context.outputShape.count
    return { output.update(from: input, count: count) }
  }
}
