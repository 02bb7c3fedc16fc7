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
  ///
  /// `part`, if given, limits the work to those rows (to those rows of every group when
  /// transposing), so threads can share it.
  public static func optimized(
    _ input: UnsafePointer<Float>, rows: Int, channels: Int, gamma: UnsafePointer<Float>,
    epsilon: Float, output: UnsafeMutablePointer<Float>, transposedRows: Int? = nil, part: Range<Int>? = nil
  ) {
    if let block = transposedRows {
      return transposed(
        input, rows: rows, block: block, channels: channels, gamma: gamma, epsilon: epsilon, output: output,
        part: part ?? 0..<block)
    }
    for r in part ?? 0..<rows {
      let x = input + r * channels
      let (scale, negated) = statistics(x, channels: channels, epsilon: epsilon)
      let out = output + r * channels
      let (splatScale, splatNegated) = (Vector(repeating: scale), Vector(repeating: negated))
      var i = 0
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

  /// The transposed variant: eight rows at a time, so each channel's eight outputs are
  /// one contiguous store.
  private static func transposed(
    _ input: UnsafePointer<Float>, rows: Int, block: Int, channels: Int, gamma: UnsafePointer<Float>,
    epsilon: Float, output: UnsafeMutablePointer<Float>, part: Range<Int>
  ) {
    var scales = Vector.zero
    var negations = Vector.zero
    var group = 0
    while group < rows {
      let x = input + group * channels
      let out = output + group * channels
      var r = part.lowerBound
      while r + 8 <= part.upperBound {
        for k in 0..<8 {
          (scales[k], negations[k]) = statistics(x + (r + k) * channels, channels: channels, epsilon: epsilon)
        }
        let rowsX = x + r * channels
        for c in 0..<channels {
          var values = Vector.zero
          for k in 0..<8 { values[k] = rowsX[k * channels + c] }
          let s = scales * Vector(repeating: gamma[c])
          out.store(values * s + negations * s, at: c * block + r)
        }
        r += 8
      }
      while r < part.upperBound {
        let row = x + r * channels
        let (scale, negated) = statistics(row, channels: channels, epsilon: epsilon)
        for c in 0..<channels {
          let s = scale * gamma[c]
          out[c * block + r] = row[c] * s + negated * s
        }
        r += 1
      }
      group += block
    }
  }

  /// 1 / √(variance + ε) and −mean of one row, rounded as MEAN, SQUARED_DIFFERENCE, MEAN,
  /// ADD, RSQRT and NEG round them.
  @inline(__always)
  private static func statistics(_ x: UnsafePointer<Float>, channels: Int, epsilon: Float) -> (Float, Float) {
    let count = Float(channels)
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
    return (1 / (variance + epsilon).squareRoot(), -mean)
  }
}
