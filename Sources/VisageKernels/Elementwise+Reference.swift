extension Elementwise {
  /// Applies `function` to each of `count` values, one at a time.
  public static func reference(
    _ function: UnaryFunction, _ input: UnsafePointer<Float>, count: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    for i in 0..<count { output[i] = function(input[i]) }
  }

  /// TFLite's reference broadcasting binary op: one output value at a time, each input
  /// indexed through its broadcast strides.
  public static func reference(
    _ function: BinaryFunction, _ broadcast: Broadcast, lhs: UnsafePointer<Float>,
    rhs: UnsafePointer<Float>, clamp: Clamp, output: UnsafeMutablePointer<Float>
  ) {
    let shape = broadcast.outputShape
    let rank = shape.count
    let total = broadcast.count
    var index = [Int](repeating: 0, count: rank)
    for flat in 0..<total {
      var a = 0
      var b = 0
      for d in 0..<rank {
        a += index[d] * broadcast.lhsStrides[d]
        b += index[d] * broadcast.rhsStrides[d]
      }
      output[flat] = clamp(function(lhs[a], rhs[b]))
      var d = rank - 1
      while d >= 0 {
        index[d] += 1
        if index[d] < shape[d] { break }
        index[d] = 0
        d -= 1
      }
    }
  }
}
