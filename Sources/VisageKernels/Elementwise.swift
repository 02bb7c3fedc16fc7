/// Value-by-value kernels: unary functions, broadcasting binary functions, bias and clamp.
public enum Elementwise {
  /// Applies `function` to `count` values, eight at a time where the function allows.
  public static func optimized(
    _ function: UnaryFunction, _ input: UnsafePointer<Float>, count: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    let vectorEnd = count & ~7
    var i = 0
    switch function {
    case .relu, .relu6, .negate, .squareRoot, .reciprocalSquareRoot:
      while i < vectorEnd {
        let x = input.vector(at: i)
        let y: Vector
        switch function {
        case .relu: y = pointwiseMax(x, .zero)
        case .relu6: y = x.clamped(lowerBound: .zero, upperBound: Vector(repeating: 6))
        case .negate: y = -x
        case .squareRoot: y = x.squareRoot()
        default: y = 1 / x.squareRoot()
        }
        output.store(y, at: i)
        i += 8
      }
    case .logistic, .tanh:
      break
    }
    while i < count {
      output[i] = function(input[i])
      i += 1
    }
  }

  /// Broadcasting binary op, vectorized along the last dimension whatever each input's
  /// stride there (1, or 0 when that input repeats).
  public static func optimized(
    _ function: BinaryFunction, _ broadcast: Broadcast, lhs: UnsafePointer<Float>,
    rhs: UnsafePointer<Float>, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    let n = broadcast.outputShape.last ?? 1
    let lhsStep = broadcast.lhsStrides.last ?? 0
    let rhsStep = broadcast.rhsStrides.last ?? 0
    broadcast.forEachRow { row, a, b in
      binaryRow(
        function, lhs + a, lhsStep, rhs + b, rhsStep, clamp, output + row * n, count: n)
    }
  }

  @inline(__always)
  static func binaryRow(
    _ function: BinaryFunction, _ lhs: UnsafePointer<Float>, _ lhsStep: Int,
    _ rhs: UnsafePointer<Float>, _ rhsStep: Int, _ clamp: Clamp,
    _ out: UnsafeMutablePointer<Float>, count: Int
  ) {
    guard count > 0 else { return }
    var i = 0
    let vectorEnd = count & ~7
    let lhsSplat = Vector(repeating: lhs[0])
    let rhsSplat = Vector(repeating: rhs[0])
    while i < vectorEnd {
      let a = lhsStep == 0 ? lhsSplat : lhs.vector(at: i)
      let b = rhsStep == 0 ? rhsSplat : rhs.vector(at: i)
      out.store(clamp(function(a, b)), at: i)
      i += 8
    }
    while i < count {
      out[i] = clamp(function(lhs[i * lhsStep], rhs[i * rhsStep]))
      i += 1
    }
  }

  /// Adds `bias[c]` to every row's channel `c` and clamps, in place: the epilogue of a GEMM
  /// convolution.
  public static func addBiasAndClamp(
    _ data: UnsafeMutablePointer<Float>, rows: Int, channels: Int,
    bias: UnsafePointer<Float>, clamp: Clamp
  ) {
    let vectorEnd = channels & ~7
    for r in 0..<rows {
      let row = data + r * channels
      var c = 0
      while c < vectorEnd {
        row.store(clamp(row.vector(at: c) + bias.vector(at: c)), at: c)
        c += 8
      }
      while c < channels {
        row[c] = clamp(row[c] + bias[c])
        c += 1
      }
    }
  }
}
