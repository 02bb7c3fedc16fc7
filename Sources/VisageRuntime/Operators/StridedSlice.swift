import VisageKernels

/// TFLite's STRIDED_SLICE with constant begin, end and strides.
///
/// Supports begin, end and shrink-axis masks and the `offset` flag; ellipsis and new-axis
/// masks are refused by the decoder.
public struct StridedSlice: Operator {
  /// Start index per dimension (negative counts from the end).
  public var begin: [Int]
  /// Stop index per dimension (exclusive; negative counts from the end).
  public var end: [Int]
  /// Step per dimension; never zero.
  public var strides: [Int]
  /// Bit d set: ignore `begin[d]` and start at the first element in stride order.
  public var beginMask: Int
  /// Bit d set: ignore `end[d]` and run to the last element in stride order.
  public var endMask: Int
  /// Bit d set: take the single element at `begin[d]` and drop dimension d.
  public var shrinkAxisMask: Int
  /// When true, `end` is relative to `begin`.
  public var offset: Bool

  /// Creates a strided slice.
  public init(
    begin: [Int], end: [Int], strides: [Int], beginMask: Int = 0, endMask: Int = 0,
    shrinkAxisMask: Int = 0, offset: Bool = false
  ) {
    self.begin = begin
    self.end = end
    self.strides = strides
    self.beginMask = beginMask
    self.endMask = endMask
    self.shrinkAxisMask = shrinkAxisMask
    self.offset = offset
  }

  public var name: String { "STRIDED_SLICE" }

  /// Per dimension: first index, step and element count, following TFLite's
  /// strided_slice_logic.h (`StartForAxis`, `StopForAxis`).
  func ranges(_ x: Shape) throws(RuntimeError) -> [(start: Int, step: Int, count: Int)] {
    guard begin.count == x.rank, end.count == x.rank, strides.count == x.rank else {
      throw .invalidOperator("\(name) needs begin, end and strides of rank \(x.rank)")
    }
    var result: [(Int, Int, Int)] = []
    for d in 0..<x.rank {
      let size = x[d]
      let step = strides[d]
      guard step != 0, abs(step) <= 1 << 30 else { throw .invalidOperator("\(name) stride \(step) on axis \(d)") }
      var start = begin[d]
      if beginMask & (1 << d) != 0 { start = step > 0 ? 0 : size - 1 }
      if start < 0 { start += size }
      start = step > 0 ? min(max(start, 0), size) : min(max(start, -1), size - 1)
      var stop: Int
      if shrinkAxisMask & (1 << d) != 0 {
        stop = start + 1
        guard start >= 0, start < size else {
          throw .invalidOperator("\(name) shrinks axis \(d) at index \(begin[d]) outside size \(size)")
        }
      } else if endMask & (1 << d) != 0 {
        stop = step > 0 ? size : -1
      } else {
        stop = offset ? begin[d] + end[d] : end[d]
        if stop < 0 { stop += size }
        stop = step > 0 ? min(max(stop, 0), size) : min(max(stop, -1), size - 1)
      }
      let span = step > 0 ? stop - start : start - stop
      let count = span <= 0 ? 0 : (span + abs(step) - 1) / abs(step)
      result.append((start, step, count))
    }
    return result
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard inputs.count == 1 else { throw .invalidOperator("\(name) takes one input, got \(inputs.count)") }
    let r = try ranges(inputs[0])
    return Shape(r.indices.filter { shrinkAxisMask & (1 << $0) == 0 }.map { r[$0].count })
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let x = context.inputShapes[0]
    let r = try ranges(x)
    let inputStrides = Layout.strides(x.dimensions)
    let base = zip(r, inputStrides).reduce(0) { $0 + $1.0.start * $1.1 }
    let strides = zip(r, inputStrides).map { $0.step * $1 }
    let shape = r.map(\.count)
    let input = context.inputs[0]
    let output = context.output
    return {
      Layout.stridedCopy(input, base: base, inputStrides: strides, outputShape: shape, output: output)
    }
  }
}
