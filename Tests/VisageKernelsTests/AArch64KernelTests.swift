import CVisageISA
import Testing
import VisageTestSupport

@testable import VisageKernels

/// The AArch64 build of every GEMM, depthwise and pooling micro-kernel, run under emulation
/// (`.ci/arm64`; `AArch64Driver`), against the reference kernels on the host, on the shapes
/// of the x86-64 kernel tests: exact where the copy multiplies and adds apart, within
/// rounding where it fuses them. The host packs the weights as the plans do (the plans'
/// own `weights` and row parameters) and makes the calls the optimized kernels make.
@Suite(.enabled(if: AArch64Driver.isConfigured, "no AArch64 driver: .ci/arm64 runs these"))
struct AArch64KernelTests {
  @Test func packedGEMM() throws {
    var checks: [Check] = []
    // The GEMM grid's A·Bᵀ shapes (strided rows, empty sizes) at every tile height.
    for c in GEMMCase.grid where c.transposeB && c.m > 0 && c.n > 0 {
      var random = RandomSource(seed: UInt64(c.index))
      let a = random.floats(c.m * c.lda)
      let b = random.floats(c.n * c.ldb)
      for tileRows in [1, 2, 4, 6, 8] {
        checks.append(
          packedCheck(
            m: c.m, n: c.n, k: c.k, a: a, lda: c.lda, b: b, ldb: c.ldb, ldc: c.ldc, tileRows: tileRows,
            label: "\(c.testDescription) \(tileRows)-row"))
      }
    }
    // The fused finishes: bias, residuals of all or fewer columns, clamps, PReLU.
    for n in [8, 13, 16, 24, 29, 32, 40, 48] {
      for m in [1, 7, 8, 11, 17, 30] {
        var random = RandomSource(seed: UInt64(n * 100 + m))
        let (k, a, b) = (19, random.floats(m * 19), random.floats(n * 19))
        let bias = random.floats(n)
        let slopes = random.floats(n, in: 0...1)
        for residualChannels in [nil, n, max(1, n - 5), max(1, n - 17)] {
          let residual = random.floats(m * (residualChannels ?? 0))
          for (clamp, prelu) in [(Clamp.none, true), (.none, false), (.relu, false), (.relu6, true)] {
            for tileRows in [1, 2, 4, 6, 8] {
              checks.append(
                packedCheck(
                  m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, ldc: n, bias: bias, slopes: prelu ? slopes : nil,
                  clamp: clamp, residual: residualChannels.map { (residual, $0) }, tileRows: tileRows,
                  label: "m\(m) n\(n) residual \(residualChannels ?? 0) \(clamp) prelu \(prelu) \(tileRows)-row"))
            }
          }
        }
      }
    }
    // Rows of A in three runs (a convolution's patches read in place).
    for (m, n, run) in [(5, 16, 4), (13, 40, 7), (9, 3, 1)] {
      var random = RandomSource(seed: UInt64(m * n * run))
      let lda = 3 * run + 11
      let a = random.floats(m * lda)
      let b = random.floats(n * 3 * run)
      for tileRows in [2, 6, 8] {
        checks.append(
          packedCheck(
            m: m, n: n, k: 3 * run, a: a, lda: lda, b: b, ldb: 3 * run, ldc: n + 2,
            segments: [0, run + 4, 2 * run + 9],
            tileRows: tileRows, label: "segments m\(m) n\(n) run \(run) \(tileRows)-row"))
      }
    }
    try run(checks)
  }

  @Test func leftPackedGEMM() throws {
    var checks: [Check] = []
    for m in LeftPackedCase.heights {
      for (k, n) in LeftPackedCase.shapes {
        let c = LeftPackedCase(m: m, k: k, n: n)
        let (ldx, ldc, a, x, bias, residual) = (c.ldx, c.ldc, c.a, c.x, c.bias, c.residual)
        for (clamp, withBias, withResidual) in LeftPackedCase.epilogues {
          let extra = withResidual ? residual : nil
          var expected = [Float](repeating: -7, count: m * ldc)
          withEpilogue(bias: withBias ? bias : nil, clamp: clamp, residual: extra) {
            LeftPackedGEMM.reference(
              m: m, n: n, k: k, a: a, lda: k + 3, x: x, ldx: ldx, epilogue: $0, c: &expected, ldc: ldc)
          }
          for tileRows in [8, 4, 2] {
            let gemm = withEpilogue(bias: withBias ? bias : nil, clamp: clamp) {
              LeftPackedGEMM(a: a, m: m, k: k, lda: k + 3, epilogue: $0, tileRows: tileRows, instructionSet: .baseline)
            }
            let w = gemm.weights
            let rows = (m + 7) / 8 * 8
            let initial = AArch64Driver.bytes([Float](repeating: -7, count: m * ldc))
            // The taller shapes' panels in two calls, as threads split them.
            let parts = gemm.panelCount > 2 ? [0..<1, 1..<gemm.panelCount] : [0..<gemm.panelCount]
            // The plan owns the packed buffers the cases copy.
            let cases = withExtendedLifetime(gemm) {
              parts.map { part in
                AArch64Driver.Case(
                  .leftPackedGEMM, ints: [m, k, w.tileRows, n, ldx, ldc, part.lowerBound, part.upperBound],
                  doubles: [Double(w.lower), Double(w.upper)],
                  buffers: [
                    floats(w.panels, rows * k), floats(w.bias, rows), AArch64Driver.bytes(x), initial,
                    extra.map(AArch64Driver.bytes),
                  ], output: 3)
              }
            }
            checks.append(
              Check(
                cases: cases, chained: true, expected: expected, tolerance: AArch64Driver.sameOrder(k),
                label: "left m\(m) k\(k) n\(n) \(clamp) bias \(withBias) residual \(withResidual) tile \(tileRows)",
                shape: [m, ldc]))
          }
        }
      }
    }
    try run(checks)
  }

  @Test func depthwise3x3Rows() throws {
    var checks: [Check] = []
    for c in DepthwiseCase.grid + DepthwiseCase.extras + DepthwiseCase.rows3x3 {
      let g = c.geometry
      guard let rows = DepthwiseConvolution.Rows3x3(g) else { continue }
      let (input, filter, given) = c.data()
      let bias = given ?? [Float](repeating: 0, count: g.output.channels)
      var random = RandomSource(seed: UInt64(c.index) + 1)
      // Every third case with PReLU slopes after its clamp.
      let slopes = c.index % 3 == 0 ? random.floats(g.output.channels, in: 0...1) : nil
      let expected = Kernel.depthwise(g, input: input, filter: filter, bias: bias, clamp: c.clamp, .reference)
        .enumerated().map { i, x in slopes.map { x >= 0 ? x : x * $0[i % g.output.channels] } ?? x }
      // The row parameters but their pointers (the driver has its own copies).
      let (ints, clamp) = filter.withUnsafeBufferPointer { f in
        withEpilogue(bias: bias, clamp: c.clamp, slopes: slopes) {
          let layer = rows.layer(g, f.baseAddress!, $0)
          return (
            [
              layer.channels, layer.strideWidth, layer.outputWidth, layer.spanWidth, Int(layer.leftEdge),
              Int(layer.rightEdge), layer.firstInside, layer.endInside, layer.padLeft,
            ], [Double(layer.lower), Double(layer.upper)]
          )
        }
      }
      // Each output row's three input rows (−1: the row of zeros) and where it goes, as
      // `DepthwiseConvolution.run3x3` passes them.
      var offsets: [Int] = []
      for outputRow in 0..<(g.output.batch * g.output.height) {
        let (b, outY) = outputRow.quotientAndRemainder(dividingBy: g.output.height)
        for fy in 0..<3 {
          let y = outY * g.strideHeight - g.padTop + fy
          offsets.append(y >= 0 && y < g.input.height ? g.input.offset(b, y, 0, 0) : -1)
        }
        offsets.append(g.output.offset(b, outY, 0, 0))
      }
      let zeros = [Float](repeating: 0, count: g.input.width * g.input.channels)
      let call = AArch64Driver.Case(
        .depthwise3x3Rows, ints: ints + [offsets.count / 4] + offsets, doubles: clamp,
        buffers: [
          AArch64Driver.bytes(filter), AArch64Driver.bytes(bias), slopes.map(AArch64Driver.bytes),
          AArch64Driver.bytes(input), AArch64Driver.bytes(zeros),
          AArch64Driver.bytes([Float](repeating: .nan, count: g.output.count)),
        ], output: 5)
      checks.append(
        Check(
          cases: [call], expected: expected, tolerance: AArch64Driver.sameOrder(9),
          label: "depthwise \(c.testDescription)\(slopes == nil ? "" : " prelu")",
          shape: [g.output.batch, g.output.height, g.output.width, g.output.channels]))
    }
    try run(checks)
  }

  @Test func maxPool2x2Rows() throws {
    var checks: [Check] = []
    for c in PoolingCase.grid where Pooling.takesRowKernel(c.geometry) {
      let g = c.geometry
      var random = RandomSource(seed: UInt64(c.index))
      let input = random.floats(g.input.count, in: -8...2)
      let expected = Kernel.maxPool(g, input: input, clamp: c.clamp, .reference)
      // The kernel's calls, as `Pooling.optimized` makes them; its outputs start as NaN and
      // the rest as the reference's, so the whole output must come back as the reference.
      var output = expected
      let (first, end) = Pooling.insideColumns(g)
      var calls: [Int] = []
      for row in 0..<(g.output.batch * g.output.height) {
        let (b, outY) = row.quotientAndRemainder(dividingBy: g.output.height)
        let originY = outY * g.strideHeight - g.padTop
        guard originY >= 0 && originY + 2 <= g.input.height else { continue }
        let out = g.output.offset(b, outY, first, 0)
        calls += [
          g.input.offset(b, originY, first * g.strideWidth - g.padLeft, 0), g.input.width * g.input.channels,
          g.strideWidth * g.input.channels, out, end - first, g.input.channels,
        ]
        for i in out..<(out + (end - first) * g.input.channels) { output[i] = .nan }
      }
      let call = AArch64Driver.Case(
        .maxPool2x2Rows, ints: [calls.count / 6] + calls,
        doubles: [Double(c.clamp.lowerBound), Double(c.clamp.upperBound)],
        buffers: [AArch64Driver.bytes(input), AArch64Driver.bytes(output)], output: 1)
      checks.append(
        Check(
          cases: [call], expected: expected, tolerance: .exact, label: "max pool \(c.testDescription)",
          shape: [g.output.batch, g.output.height, g.output.width, g.output.channels]))
    }
    try run(checks)
  }

  /// One packed GEMM call: the plan packs B, the expected C is summed in k order with a
  /// multiply then an add and finished as the reference orders it (bias, residual, clamp,
  /// PReLU); C's slack columns keep their sentinel.
  private func packedCheck(
    m: Int, n: Int, k: Int, a: [Float], lda: Int, b: [Float], ldb: Int, ldc: Int, segments: [Int] = [0],
    bias: [Float]? = nil, slopes: [Float]? = nil, clamp: Clamp = .none, residual: ([Float], channels: Int)? = nil,
    tileRows: Int, label: String
  ) -> Check {
    // The reference: A's rows gathered from their runs, GEMM.reference (k order, multiply then
    // add), then the epilogue with the plan's bias (zeros when there is none).
    let sentinel: Float = -12345
    let run = k / segments.count
    let rows = (0..<m).flatMap { i in (0..<k).map { p in a[i * lda + segments[p / run] + p % run] } }
    var sums = [Float](repeating: 0, count: max(m * n, 1))
    GEMM.reference(m: m, n: n, k: k, a: rows, lda: k, b: b, ldb: ldb, transposeB: true, c: &sums, ldc: n)
    var expected = [Float](repeating: sentinel, count: m * ldc)
    withEpilogue(
      bias: bias ?? [Float](repeating: 0, count: n), clamp: clamp, slopes: slopes, residual: residual?.0,
      residualChannels: residual?.channels ?? .max
    ) { finish in
      for i in 0..<m {
        for j in 0..<n {
          expected[i * ldc + j] = finish(sums[i * n + j], channel: j, residualAt: i * (residual?.channels ?? 0) + j)
        }
      }
    }
    let gemm = withEpilogue(bias: bias, clamp: clamp, slopes: slopes) {
      PackedGEMM(b: b, n: n, k: k, ldb: ldb, epilogue: $0, tileRows: tileRows, instructionSet: .baseline)
    }
    let w = gemm.weights
    let padded = (n + 15) / 16 * 16
    let call = withExtendedLifetime(gemm) {
      AArch64Driver.Case(
        .packedGEMM, ints: [n, k, w.tileRows, m, lda, segments.count, ldc, residual?.channels ?? 0] + segments,
        doubles: [Double(w.lower), Double(w.upper)],
        buffers: [
          floats(w.panels, max(1, padded * k)), floats(w.bias, padded), w.slopes.map { floats($0, padded) },
          AArch64Driver.bytes(a), AArch64Driver.bytes([Float](repeating: sentinel, count: m * ldc)),
          residual.map { AArch64Driver.bytes($0.0) },
        ], output: 4)
    }
    return Check(
      cases: [call], expected: expected, tolerance: AArch64Driver.sameOrder(k), label: label, shape: [m, ldc])
  }

  private func floats(_ pointer: UnsafePointer<Float>, _ count: Int) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: pointer, count: count * 4))
  }
}

/// Driver cases whose last output must match `expected`. With `chained`, each case after
/// the first starts from the previous case's output (its output buffer is replaced by it),
/// as calls that share one C do.
struct Check {
  var cases: [AArch64Driver.Case]
  var chained = false
  var expected: [Float]
  var tolerance: Tolerance
  var label: String
  var shape: [Int]
}

/// Runs every check's cases, one driver process per chain step, and compares.
func run(_ checks: [Check], sourceLocation: SourceLocation = #_sourceLocation) throws {
  #expect(checks.count > 20, "too few cases", sourceLocation: sourceLocation)
  var outputs = [[Float]](repeating: [], count: checks.count)
  let steps = checks.map(\.cases.count).max() ?? 0
  for step in 0..<steps {
    let active = checks.indices.filter { step < checks[$0].cases.count }
    let cases = active.map { i in
      var c = checks[i].cases[step]
      if step > 0 && checks[i].chained { c.buffers[c.output] = AArch64Driver.bytes(outputs[i]) }
      return c
    }
    for (i, output) in zip(active, try AArch64Driver.run(cases)) { outputs[i] = output }
  }
  var failures = 0
  for (check, output) in zip(checks, outputs) where failures < 10 {
    if !AArch64Driver.expectMatch(
      output, check.expected, check.tolerance, check.label, shape: check.shape, sourceLocation: sourceLocation)
    {
      failures += 1
    }
  }
}
