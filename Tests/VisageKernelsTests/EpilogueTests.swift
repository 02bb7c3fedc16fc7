import Testing
import VisageKernels
import VisageTestSupport

/// `Epilogue.Bound` applied in one pass (what the kernels do) against its steps run as the
/// separate operators run them (what the reference paths do): bit for bit, on channel
/// counts around the eight-lane width and residuals with fewer channels than the output.
@Suite struct EpilogueTests {
  @Test(arguments: [(1, 1), (7, 7), (8, 3), (9, 8), (13, 5), (17, 11), (24, 24), (33, 16)])
  func onePassMatchesSeparateSteps(_ channels: Int, _ residualChannels: Int) {
    let rows = 3
    var random = RandomSource(seed: UInt64(100 * channels + residualChannels))
    let sums = random.floats(rows * channels, in: -3...3)
    let bias = random.floats(channels, in: -1...1)
    let residual = random.floats(rows * residualChannels, in: -2...2)
    let slopes = random.floats(channels, in: 0...1)
    for (clamp, withResidual, withSlopes) in [
      (Clamp.none, true, true), (.relu6, true, false), (.relu, false, false), (.none, false, true),
    ] {
      withEpilogue(
        bias: bias, clamp: clamp, slopes: withSlopes ? slopes : nil, residual: withResidual ? residual : nil,
        residualChannels: residualChannels
      ) { epilogue in
        var fused = sums
        epilogue.apply(to: &fused, rows: rows, channels: channels)
        // The operator's own bias and clamp, then the folded steps one pass each.
        var separate = sums.indices.map { epilogue.operatorClamp(sums[$0] + bias[$0 % channels]) }
        epilogue.applySeparately(to: &separate, rows: rows, channels: channels)
        let label =
          "\(channels) channels, residual \(withResidual ? residualChannels : 0), \(clamp), slopes \(withSlopes)"
        expectClose(fused, separate, .exact, label, shape: [rows, channels])
      }
    }
  }
}

/// `LayerNormalization.optimized` against its reference twin, with and without the folded
/// transpose, on row and channel counts around its four-row and eight-lane steps.
@Suite struct LayerNormalizationTests {
  @Test(
    arguments: [(1, 1, nil), (3, 7, nil), (5, 8, nil), (9, 17, nil), (97, 64, 97), (10, 13, 5), (24, 9, 8)]
      as [(Int, Int, Int?)])
  func optimizedMatchesReference(_ rows: Int, _ channels: Int, _ transposedRows: Int?) {
    var random = RandomSource(seed: UInt64(1000 * rows + channels))
    let input = random.floats(rows * channels, in: -3...3)
    let gamma = random.floats(channels, in: 0.5...1.5)
    var expected = [Float](repeating: .nan, count: rows * channels)
    LayerNormalization.reference(
      input, rows: rows, channels: channels, gamma: gamma, epsilon: 1e-6, output: &expected,
      transposedRows: transposedRows)
    var actual = [Float](repeating: .nan, count: rows * channels)
    LayerNormalization.optimized(
      input, rows: rows, channels: channels, gamma: gamma, epsilon: 1e-6, output: &actual,
      transposedRows: transposedRows)
    expectClose(
      actual, expected, .reordered(channels),
      "\(rows)×\(channels) transposed \(transposedRows.map(String.init) ?? "no")")
  }
}
