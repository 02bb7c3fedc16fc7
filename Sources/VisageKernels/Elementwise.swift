/// Value-by-value kernels: unary functions and broadcasting binary functions.
///
/// Each function gets its own loop (the closures below are inlined and specialized), so the
/// choice of function is made once per call rather than once per value.
public enum Elementwise {
  /// Applies `function` to `count` values, eight at a time where the function allows.
  public static func optimized(
    _ function: UnaryFunction, _ input: UnsafePointer<Float>, count: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    switch function {
    case .relu:
      map(input, count, output) {
        lanewiseMax($0, .zero)
      } _: {
        max(0, $0)
      }
    case .relu6:
      map(input, count, output) {
        lanewiseMin(lanewiseMax($0, .zero), Vector(repeating: 6))
      } _: {
        min(max(0, $0), 6)
      }
    case .negate:
      map(input, count, output) {
        -$0
      } _: {
        -$0
      }
    case .squareRoot:
      map(input, count, output) {
        $0.squareRoot()
      } _: {
        $0.squareRoot()
      }
    case .reciprocalSquareRoot:
      map(input, count, output) {
        1 / $0.squareRoot()
      } _: {
        1 / $0.squareRoot()
      }
    case .logistic, .tanh: reference(function, input, count: count, output: output)
    }
  }

  @inline(__always)
  private static func map(
    _ input: UnsafePointer<Float>, _ count: Int, _ output: UnsafeMutablePointer<Float>,
    _ vector: (Vector) -> Vector, _ scalar: (Float) -> Float
  ) {
    var i = 0
    while i + 8 <= count {
      output.store(vector(input.vector(at: i)), at: i)
      i += 8
    }
    while i < count {
      output[i] = scalar(input[i])
      i += 1
    }
  }

  /// Broadcasting binary op, vectorized along the last dimension whatever each input's
  /// stride there (1, or 0 when that input repeats). Pass `broadcast.coalesced`, computed
  /// once when the operator is prepared, for the longest rows.
  public static func optimized(
    _ function: BinaryFunction, _ broadcast: Broadcast, lhs: UnsafePointer<Float>,
    rhs: UnsafePointer<Float>, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    // A rank-0 broadcast has no last dimension to run along; coalescing gives it one.
    let b = broadcast.outputShape.isEmpty ? broadcast.coalesced : broadcast
    switch function {
    case .add:
      apply(b, lhs, rhs, clamp, output) {
        $0 + $1
      } _: {
        $0 + $1
      }
    case .subtract:
      apply(b, lhs, rhs, clamp, output) {
        $0 - $1
      } _: {
        $0 - $1
      }
    case .multiply:
      apply(b, lhs, rhs, clamp, output) {
        $0 * $1
      } _: {
        $0 * $1
      }
    case .divide:
      apply(b, lhs, rhs, clamp, output) {
        $0 / $1
      } _: {
        $0 / $1
      }
    case .squaredDifference:
      apply(b, lhs, rhs, clamp, output) {
        ($0 - $1) * ($0 - $1)
      } _: {
        ($0 - $1) * ($0 - $1)
      }
    case .prelu:
      apply(b, lhs, rhs, clamp, output) {
        $0.replacing(with: $0 * $1, where: $0 .< 0)
      } _: {
        $0 >= 0 ? $0 : $0 * $1
      }
    case .maximum:
      apply(b, lhs, rhs, clamp, output) {
        lanewiseMax($0, $1)
      } _: {
        max($0, $1)
      }
    case .minimum:
      apply(b, lhs, rhs, clamp, output) {
        lanewiseMin($0, $1)
      } _: {
        min($0, $1)
      }
    }
  }

  @inline(__always)
  private static func apply(
    _ broadcast: Broadcast, _ lhs: UnsafePointer<Float>, _ rhs: UnsafePointer<Float>,
    _ clamp: Clamp, _ output: UnsafeMutablePointer<Float>,
    _ vector: (Vector, Vector) -> Vector, _ scalar: (Float, Float) -> Float
  ) {
    let n = broadcast.outputShape.last!
    let lhsStep = broadcast.lhsStrides.last!
    let rhsStep = broadcast.rhsStrides.last!
    // Two coalesced dimensions (a per-channel operand over pixels, say) need no index walk.
    if broadcast.outputShape.count == 2 {
      let (lhsRow, rhsRow) = (broadcast.lhsStrides[0], broadcast.rhsStrides[0])
      for row in 0..<broadcast.outputShape[0] {
        binaryRow(lhs + row * lhsRow, lhsStep, rhs + row * rhsRow, rhsStep, output + row * n, n, clamp, vector, scalar)
      }
      return
    }
    broadcast.forEachRow { row, a, b in
      binaryRow(lhs + a, lhsStep, rhs + b, rhsStep, output + row * n, n, clamp, vector, scalar)
    }
  }

  @inline(__always)
  private static func binaryRow(
    _ x: UnsafePointer<Float>, _ lhsStep: Int, _ y: UnsafePointer<Float>, _ rhsStep: Int,
    _ out: UnsafeMutablePointer<Float>, _ n: Int, _ clamp: Clamp,
    _ vector: (Vector, Vector) -> Vector, _ scalar: (Float, Float) -> Float
  ) {
    switch (lhsStep, rhsStep) {
    case (1, 1): rowLoop(n, out, clamp, { x.vector(at: $0) }, { y.vector(at: $0) }, { scalar(x[$0], y[$0]) }, vector)
    case (1, 0):
      let splat = Vector(repeating: y[0])
      rowLoop(n, out, clamp, { x.vector(at: $0) }, { _ in splat }, { scalar(x[$0], y[0]) }, vector)
    case (0, 1):
      let splat = Vector(repeating: x[0])
      rowLoop(n, out, clamp, { _ in splat }, { y.vector(at: $0) }, { scalar(x[0], y[$0]) }, vector)
    default:
      for i in 0..<n { out[i] = clamp(scalar(x[i * lhsStep], y[i * rhsStep])) }
    }
  }

  @inline(__always)
  private static func rowLoop(
    _ n: Int, _ out: UnsafeMutablePointer<Float>, _ clamp: Clamp,
    _ left: (Int) -> Vector, _ right: (Int) -> Vector, _ scalar: (Int) -> Float,
    _ vector: (Vector, Vector) -> Vector
  ) {
    var i = 0
    if clamp.isNone {
      while i + 8 <= n {
        out.store(vector(left(i), right(i)), at: i)
        i += 8
      }
    } else {
      while i + 8 <= n {
        out.store(clamp(vector(left(i), right(i))), at: i)
        i += 8
      }
    }
    while i < n {
      out[i] = clamp(scalar(i))
      i += 1
    }
  }

  /// `out[i] = lhs[i] + rhs[i]` for `count` values: the building block the reductions use
  /// to add rows.
  static func addRows(
    _ lhs: UnsafePointer<Float>, _ rhs: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
    count: Int
  ) {
    rowLoop(count, out, .none, { lhs.vector(at: $0) }, { rhs.vector(at: $0) }, { lhs[$0] + rhs[$0] }, +)
  }
}
