/// Layer normalization over the last dimension, as TFLite graphs spell it out in ten
/// operators: MEAN, NEG, SQUARED_DIFFERENCE, MEAN, ADD ε, RSQRT, MUL γ, MUL, MUL, ADD.
public enum LayerNormalization {
  /// For each row x of `channels` values:
  ///
  ///     m = mean(x); v = mean((x - m)²); s = γ · (1 / √(v + ε)); y = x · s + (-m) · s
  ///
  /// with every value rounded as the separate operators round it (the optimized MEAN's
  /// eight interleaved partial sums included), so the result is bit-identical to running
  /// them one by one, in one pass per row instead of ten over the tensor.
  ///
  /// `rows` counts all rows; with `transposedRows`, the output swaps the last two
  /// dimensions (a following TRANSPOSE folded in): rows are taken in groups of
  /// `transposedRows`, and value c of row r in a group goes to `c · transposedRows + r`
  /// of that group's block.
  public static func optimized(
    _ input: UnsafePointer<Float>, rows: Int, channels: Int, gamma: UnsafePointer<Float>,
    epsilon: Float, output: UnsafeMutablePointer<Float>, transposedRows: Int? = nil
  ) {
    let count = Float(channels)
    for r in 0..<rows {
      let x = input + r * channels
      let mean = Reduction.contiguousSum(x, count: channels) / count
      // The sum of squared differences, accumulated as `contiguousSum` would add them.
      var accumulator = Vector.zero
      let splatMean = Vector(repeating: mean)
      var i = 0
      while i + 8 <= channels {
        let d = x.vector(at: i) - splatMean
        accumulator += d * d
        i += 8
      }
      var total = accumulator.sum()
      while i < channels {
        let d = x[i] - mean
        total += d * d
        i += 1
      }
      let variance = total / count
      let scale = 1 / (variance + epsilon).squareRoot()
      let negated = -mean
      if let block = transposedRows {
        let group = r / block
        let within = r - group * block
        let out = output + group * block * channels + within
        for c in 0..<channels {
          let s = scale * gamma[c]
          out[c * block] = x[c] * s + negated * s
        }
      } else {
        let out = output + r * channels
        let (splatScale, splatNegated) = (Vector(repeating: scale), Vector(repeating: negated))
        i = 0
        while i + 8 <= channels {
          let s = splatScale * gamma.vector(at: i)
          out.store(x.vector(at: i) * s + splatNegated * s, at: i)
          i += 8
        }
        while i < channels {
          let s = scale * gamma[i]
          out[i] = x[i] * s + negated * s
          i += 1
        }
      }
    }
  }
}
