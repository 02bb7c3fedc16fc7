extension Reduction {
  /// TFLite's reference reduction (reference_ops::Mean / ReduceSum): accumulate every input
  /// value into its output slot in row-major order, then divide once for a mean.
  ///
  /// `axes` are distinct dimensions of `shape`; the output holds the product of the others.
  public static func reference(
    _ kind: Kind, _ input: UnsafePointer<Float>, shape: [Int], axes: [Int],
    output: UnsafeMutablePointer<Float>
  ) {
    let rank = shape.count
    let reduced = (0..<rank).map { axes.contains($0) }
    let outputCount = (0..<rank).reduce(1) { reduced[$1] ? $0 : $0 * shape[$1] }
    output.update(repeating: 0, count: outputCount)
    var index = [Int](repeating: 0, count: rank)
    let total = shape.reduce(1, *)
    for flat in 0..<total {
      var target = 0
      for d in 0..<rank where !reduced[d] { target = target * shape[d] + index[d] }
      output[target] += input[flat]
      var d = rank - 1
      while d >= 0 {
        index[d] += 1
        if index[d] < shape[d] { break }
        index[d] = 0
        d -= 1
      }
    }
    if kind == .mean {
      let n = Float(total / max(outputCount, 1))
      for i in 0..<outputCount { output[i] /= n }
    }
  }
}
