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
    let range = part ?? 0..<rows
    var r = range.lowerBound
    // Four rows' statistics at a time: each row's sums are one long chain of dependent
    // adds, and four independent chains keep the adders busy where one leaves them waiting.
    while r + 4 <= range.upperBound {
      let (scales, negations) = statistics4(input + r * channels, channels: channels, epsilon: epsilon)
      for k in 0..<4 {
        normalize(
          input + (r + k) * channels, scale: scales[k], negated: negations[k], gamma: gamma, channels: channels,
          output: output + (r + k) * channels)
      }
      r += 4
    }
    while r < range.upperBound {
      let (scale, negated) = statistics(input + r * channels, channels: channels, epsilon: epsilon)
      normalize(
        input + r * channels, scale: scale, negated: negated, gamma: gamma, channels: channels,
        output: output + r * channels)
      r += 1
    }
  }

  /// One row: y = x · s + (-m) · s with s = γ · scale.
  @inline(__always)
  private static func normalize(
    _ x: UnsafePointer<Float>, scale: Float, negated: Float, gamma: UnsafePointer<Float>, channels: Int,
    output out: UnsafeMutablePointer<Float>
  ) {
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

  /// The transposed variant: eight rows at a time, so each channel's eight outputs are
  /// one contiguous store.
  private static func transposed(
    _ input: UnsafePointer<Float>, rows: Int, block: Int, channels: Int, gamma: UnsafePointer<Float>,
    epsilon: Float, output: UnsafeMutablePointer<Float>, part: Range<Int>
  ) {
    var group = 0
    while group < rows {
      let x = input + group * channels
      let out = output + group * channels
      var r = part.lowerBound
      while r + 8 <= part.upperBound {
        let (lowScales, lowNegations) = statistics4(x + r * channels, channels: channels, epsilon: epsilon)
        let (highScales, highNegations) = statistics4(x + (r + 4) * channels, channels: channels, epsilon: epsilon)
        let scales = Vector(lowHalf: lowScales, highHalf: highScales)
        let negations = Vector(lowHalf: lowNegations, highHalf: highNegations)
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

  /// `statistics` of the four rows from `x` on (`channels` apart), computed together with
  /// each row's operations in the same order, so the results are the same bits.
  @inline(__always)
  private static func statistics4(
    _ x: UnsafePointer<Float>, channels: Int, epsilon: Float
  ) -> (SIMD4<Float>, SIMD4<Float>) {
    let count = Float(channels)
    let (x0, x1, x2, x3) = (x, x + channels, x + 2 * channels, x + 3 * channels)
    var (a0, a1, a2, a3) = (Vector.zero, Vector.zero, Vector.zero, Vector.zero)
    var i = 0
    while i + 8 <= channels {
      a0 += x0.vector(at: i)
      a1 += x1.vector(at: i)
      a2 += x2.vector(at: i)
      a3 += x3.vector(at: i)
      i += 8
    }
    let vectorEnd = i
    var totals = SIMD4(a0.sum(), a1.sum(), a2.sum(), a3.sum())
    while i < channels {
      totals += SIMD4(x0[i], x1[i], x2[i], x3[i])
      i += 1
    }
    let means = totals / count
    let (m0, m1, m2, m3) = (
      Vector(repeating: means[0]), Vector(repeating: means[1]), Vector(repeating: means[2]), Vector(repeating: means[3])
    )
    (a0, a1, a2, a3) = (Vector.zero, Vector.zero, Vector.zero, Vector.zero)
    i = 0
    while i < vectorEnd {
      let (d0, d1, d2, d3) = (
        x0.vector(at: i) - m0, x1.vector(at: i) - m1, x2.vector(at: i) - m2, x3.vector(at: i) - m3
      )
      a0 += d0 * d0
      a1 += d1 * d1
      a2 += d2 * d2
      a3 += d3 * d3
      i += 8
    }
    totals = SIMD4(a0.sum(), a1.sum(), a2.sum(), a3.sum())
    while i < channels {
      let d = SIMD4(x0[i], x1[i], x2[i], x3[i]) - means
      totals += d * d
      i += 1
    }
    let variances = totals / count
    return (1 / (variances + epsilon).squareRoot(), -means)
  }
}
