/// Value-by-value kernels: unary functions and broadcasting binary functions.
///
/// The loops run eight lanes at a time through the function's one body
/// (`UnaryFunction.callAsFunction`, `BinaryFunction.callAsFunction`), then the tail one value
/// at a time through the same body.
public enum Elementwise {
  /// Applies `function` to `count` values, eight at a time.
  public static func optimized(
    _ function: UnaryFunction, _ input: UnsafePointer<Float>, count: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    while i + 8 <= count {
      output.store(function(input.vector(at: i)), at: i)
      i += 8
    }
    while i < count {
      output[i] = function(input[i])
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
    let broadcast = broadcast.outputShape.isEmpty ? broadcast.coalesced : broadcast
    let n = broadcast.outputShape.last!
    let lhsStep = broadcast.lhsStrides.last!
    let rhsStep = broadcast.rhsStrides.last!
    // Two coalesced dimensions (a per-channel operand over pixels, say) need no index walk.
    if broadcast.outputShape.count == 2 {
      let (lhsRow, rhsRow) = (broadcast.lhsStrides[0], broadcast.rhsStrides[0])
      for row in 0..<broadcast.outputShape[0] {
        binaryRow(function, lhs + row * lhsRow, lhsStep, rhs + row * rhsRow, rhsStep, output + row * n, n, clamp)
      }
      return
    }
    broadcast.forEachRow { row, a, b in
      binaryRow(function, lhs + a, lhsStep, rhs + b, rhsStep, output + row * n, n, clamp)
    }
  }

  @inline(__always)
  private static func binaryRow(
    _ function: BinaryFunction, _ x: UnsafePointer<Float>, _ lhsStep: Int, _ y: UnsafePointer<Float>,
    _ rhsStep: Int, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ clamp: Clamp
  ) {
    switch (lhsStep, rhsStep) {
    case (1, 1):
      rowLoop(
        n, out, clamp, { x.vector(at: $0) }, { y.vector(at: $0) }, { function(x[$0], y[$0]) }, { function($0, $1) })
    case (1, 0):
      let splat = Vector(repeating: y[0])
      rowLoop(n, out, clamp, { x.vector(at: $0) }, { _ in splat }, { function(x[$0], y[0]) }, { function($0, $1) })
    case (0, 1):
      let splat = Vector(repeating: x[0])
      rowLoop(n, out, clamp, { _ in splat }, { y.vector(at: $0) }, { function(x[0], y[$0]) }, { function($0, $1) })
    default:
      for i in 0..<n { out[i] = clamp(function(x[i * lhsStep], y[i * rhsStep])) }
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
