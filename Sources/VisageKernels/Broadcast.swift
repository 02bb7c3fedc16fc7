/// NumPy-style broadcasting of two shapes, resolved to per-dimension strides.
///
/// Shapes are aligned at their last dimension; a dimension of 1 repeats. A broadcast input
/// gets stride 0 along the dimensions it repeats in, so one index walk serves every case.
public struct Broadcast: Hashable, Sendable {
  /// The shape of the result.
  public let outputShape: [Int]
  /// Element strides of the left input along each output dimension (0 where repeated).
  public let lhsStrides: [Int]
  /// Element strides of the right input along each output dimension (0 where repeated).
  public let rhsStrides: [Int]

  /// Resolves the broadcast, or returns nil when a dimension pair is neither equal nor 1.
  public init?(lhs: [Int], rhs: [Int]) {
    let rank = max(lhs.count, rhs.count)
    let a = Array(repeating: 1, count: rank - lhs.count) + lhs
    let b = Array(repeating: 1, count: rank - rhs.count) + rhs
    var shape = [Int](repeating: 1, count: rank)
    for d in 0..<rank {
      guard a[d] == b[d] || a[d] == 1 || b[d] == 1 else { return nil }
      shape[d] = a[d] == 1 ? b[d] : a[d]
    }
    outputShape = shape
    lhsStrides = Broadcast.strides(of: a, in: shape)
    rhsStrides = Broadcast.strides(of: b, in: shape)
  }

  /// The same broadcast with adjacent dimensions merged wherever both inputs step through
  /// them as one run (contiguous, or both repeated), and size-1 dimensions dropped.
  ///
  /// Two equal shapes become one long row; [97, 64] against [97, 1] stays two dimensions.
  public var coalesced: Broadcast {
    var shape: [Int] = []
    var lhs: [Int] = []
    var rhs: [Int] = []
    for d in outputShape.indices where outputShape[d] != 1 {
      if let last = shape.indices.last,
        lhs[last] == lhsStrides[d] * outputShape[d], rhs[last] == rhsStrides[d] * outputShape[d]
      {
        shape[last] *= outputShape[d]
        lhs[last] = lhsStrides[d]
        rhs[last] = rhsStrides[d]
      } else {
        shape.append(outputShape[d])
        lhs.append(lhsStrides[d])
        rhs.append(rhsStrides[d])
      }
    }
    if shape.isEmpty { return Broadcast(shape: [1], lhs: [1], rhs: [1]) }
    return Broadcast(shape: shape, lhs: lhs, rhs: rhs)
  }

  private init(shape: [Int], lhs: [Int], rhs: [Int]) {
    outputShape = shape
    lhsStrides = lhs
    rhsStrides = rhs
  }

  /// Number of output values.
  public var count: Int { outputShape.reduce(1, *) }

  private static func strides(of dims: [Int], in shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 0, count: dims.count)
    var step = 1
    for d in stride(from: dims.count - 1, through: 0, by: -1) {
      strides[d] = dims[d] == 1 && shape[d] != 1 ? 0 : step
      step *= dims[d]
    }
    return strides
  }

  /// Calls `body(outer, lhsOffset, rhsOffset)` for every position of the dimensions before
  /// the last, in row-major order; `outer` counts those positions from 0.
  @inlinable public func forEachRow(_ body: (Int, Int, Int) -> Void) {
    Layout.forEachRow(outputShape, lhsStrides, rhsStrides, body)
  }
}
