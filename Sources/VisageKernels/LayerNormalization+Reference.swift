extension LayerNormalization {
  /// The ten operators `optimized` stands for, run one after another over each row with
  /// TFLite's reference loops: MEAN (sum in order, divide once), NEG, SQUARED_DIFFERENCE,
  /// MEAN, ADD ε, RSQRT, MUL γ, MUL x, MUL the negated mean, ADD; then, with
  /// `transposedRows`, the folded TRANSPOSE as a separate copy (same layout as `optimized`).
  public static func reference(
    _ input: UnsafePointer<Float>, rows: Int, channels: Int, gamma: UnsafePointer<Float>,
    epsilon: Float, output: UnsafeMutablePointer<Float>, transposedRows: Int? = nil
  ) {
    let count = rows * channels
    let normalized = transposedRows == nil ? output : UnsafeMutablePointer<Float>.allocate(capacity: count)
    defer { if normalized != output { normalized.deallocate() } }
    let n = Float(channels)
    for r in 0..<rows {
      let x = input + r * channels
      var mean: Float = 0
      for c in 0..<channels { mean += x[c] }
      mean /= n
      let negated = -mean
      var variance: Float = 0
      for c in 0..<channels { variance += (x[c] - mean) * (x[c] - mean) }
      variance /= n
      let scale = 1 / (variance + epsilon).squareRoot()
      for c in 0..<channels {
        let s = scale * gamma[c]
        normalized[r * channels + c] = x[c] * s + negated * s
      }
    }
    guard let block = transposedRows else { return }
    Layout.stridedCopy(
      UnsafePointer(normalized), base: 0, inputStrides: [block * channels, 1, channels],
      outputShape: [rows / block, channels, block], output: output)
  }
}
