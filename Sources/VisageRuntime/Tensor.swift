/// A float32 tensor that owns its values: used at API boundaries and for constants.
public struct Tensor: Hashable, Sendable {
  /// The tensor's dimensions.
  public var shape: Shape
  /// Values in row-major order; `values.count == shape.count`.
  public var values: [Float]

  /// Creates a tensor, checking that the value count matches the shape.
  public init(shape: Shape, values: [Float]) throws(RuntimeError) {
    guard values.count == shape.count else {
      throw .invalidInput(
        "a tensor of shape \(shape) needs \(shape.count) values, got \(values.count)")
    }
    self.shape = shape
    self.values = values
  }

  /// Creates a tensor of zeros.
  public init(zeros shape: Shape) {
    self.shape = shape
    self.values = [Float](repeating: 0, count: shape.count)
  }
}
