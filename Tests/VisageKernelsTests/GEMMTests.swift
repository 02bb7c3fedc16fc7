import Testing
import VisageKernels
import VisageTestSupport

struct GEMMCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var m: Int
  var n: Int
  var k: Int
  var transposeB: Bool
  /// Extra columns in each leading dimension, so row strides differ from row lengths.
  var slack: Int

  var lda: Int { k + slack }
  var ldb: Int { (transposeB ? k : n) + slack }
  var ldc: Int { n + slack }

  var testDescription: String {
    "#\(index) m\(m) n\(n) k\(k) \(transposeB ? "A·Bᵀ" : "A·B") slack \(slack)"
  }

  static let sizes: [(Int, Int, Int)] = [
    (1, 1, 1), (1, 1, 17), (3, 5, 7), (8, 8, 8), (9, 7, 15), (17, 9, 33), (64, 1, 100),
    (1, 64, 100), (31, 33, 3), (100, 24, 72), (16, 16, 9), (23, 40, 27), (8, 17, 5), (40, 8, 16), (5, 3, 0), (0, 4, 4),
    (4, 0, 4),
  ]

  static let grid: [GEMMCase] = {
    var cases: [GEMMCase] = []
    for (m, n, k) in sizes {
      for transposeB in [true, false] {
        for slack in [0, 3] {
          cases.append(GEMMCase(index: cases.count, m: m, n: n, k: k, transposeB: transposeB, slack: slack))
        }
      }
    }
    return cases
  }()
}

@Suite struct GEMMTests {
  @Test(arguments: GEMMCase.grid)
  func multiplyMatchesReference(_ c: GEMMCase) {
    var random = RandomSource(seed: UInt64(c.index))
    let a = random.floats(max(c.m * c.lda, 1))
    let bRows = c.transposeB ? c.n : c.k
    let b = random.floats(max(bRows * c.ldb, 1))
    let sentinel: Float = -12345
    var optimized = [Float](repeating: sentinel, count: max(c.m * c.ldc, 1))
    var reference = optimized
    GEMM.optimized(
      m: c.m, n: c.n, k: c.k, a: a, lda: c.lda, b: b, ldb: c.ldb, transposeB: c.transposeB,
      c: &optimized, ldc: c.ldc)
    GEMM.reference(
      m: c.m, n: c.n, k: c.k, a: a, lda: c.lda, b: b, ldb: c.ldb, transposeB: c.transposeB,
      c: &reference, ldc: c.ldc)
    expectClose(optimized, reference, .reordered(c.k), "gemm \(c.testDescription)", shape: [max(c.m, 1), c.ldc])
    expectSlackUntouched(optimized, c, sentinel, "gemm")

    // PackedGEMM computes A·Bᵀ only; it sums in k order like the reference, with every
    // micro-kernel height and instruction set this CPU runs (the build picks one; all
    // must agree).
    guard c.transposeB else { return }
    for instructionSet in InstructionSet.runnable {
      for tileRows in [1, 2, 4, 6, 8] {
        let packedGEMM = PackedGEMM(
          b: b, n: c.n, k: c.k, ldb: c.ldb, tileRows: tileRows, instructionSet: instructionSet)
        var packed = [Float](repeating: sentinel, count: max(c.m * c.ldc, 1))
        packedGEMM.multiply(m: c.m, a: a, lda: c.lda, c: &packed, ldc: c.ldc)
        let label = "packed \(instructionSet) \(tileRows)-row \(c.testDescription)"
        expectClose(packed, reference, .reordered(c.k), label, shape: [max(c.m, 1), c.ldc])
        expectSlackUntouched(packed, c, sentinel, label)
      }
    }
  }

  /// The fused finishes (bias, residual of all or fewer columns, clamp, PReLU) on every
  /// micro-kernel height and instruction set, and on widths that end at, inside and past whole panels and panel
  /// pairs, against a scalar loop in the reference order: bit for bit at the baseline,
  /// within rounding where the level fuses multiply-adds (`Tolerance.sameOrder`).
  @Test(arguments: [8, 13, 16, 24, 29, 32, 40, 48])
  func finishesMatchAScalarLoop(_ n: Int) {
    let k = 19
    // 30 rows: two twelve-row tiles of a half panel (n 8 on six-row tiles) and a six-row tail.
    for m in [1, 7, 8, 11, 17, 30] {
      var random = RandomSource(seed: UInt64(n * 100 + m))
      let a = random.floats(m * k)
      let b = random.floats(n * k)
      let bias = random.floats(n)
      let slopes = random.floats(n, in: 0...1)
      // Residuals of all columns, of all but the last few, and (n - 17) of none of the last panel.
      for residualChannels in [nil, n, max(1, n - 5), max(1, n - 17)] {
        let residual = random.floats(m * (residualChannels ?? 0))
        // Unbounded clamps (.none) take activations of their own, with and without PReLU.
        for (clamp, prelu) in [(Clamp.none, true), (.none, false), (.relu, false), (.relu6, true)] {
          var expected = [Float](repeating: 0, count: m * n)
          for i in 0..<m {
            for j in 0..<n {
              var sum: Float = 0
              for p in 0..<k { sum = a[i * k + p] * b[j * k + p] + sum }
              var x = sum + bias[j]
              if let channels = residualChannels { x = x + (j < channels ? residual[i * channels + j] : 0) }
              x = clamp(x)
              expected[i * n + j] = prelu && x < 0 ? x * slopes[j] : x
            }
          }
          for instructionSet in InstructionSet.runnable {
            for tileRows in [1, 2, 4, 6, 8] {
              let gemm = withEpilogue(bias: bias, clamp: clamp, slopes: prelu ? slopes : nil) {
                PackedGEMM(b: b, n: n, k: k, ldb: k, epilogue: $0, tileRows: tileRows, instructionSet: instructionSet)
              }
              var c = [Float](repeating: .nan, count: m * n)
              residual.withUnsafeBufferPointer { r in
                let extra = residualChannels.map { PackedGEMM.Residual(r.baseAddress!, channels: $0) }
                gemm.multiply(m: m, a: a, lda: k, c: &c, ldc: n, residual: extra)
              }
              let label =
                "m\(m) n\(n) residual \(residualChannels.map(String.init) ?? "none") \(clamp) prelu \(prelu) \(instructionSet) \(tileRows)-row"
              expectClose(c, expected, .sameOrder(k, at: instructionSet), label, shape: [m, n])
            }
          }
        }
      }
    }
  }

  /// Each level's tile height is one the micro-kernels have, and the GEMMs take it by default.
  @Test func tileHeightsAreCandidates() {
    for instructionSet in InstructionSet.allCases {
      #expect(TileHeight.candidates.contains(TileHeight.rows(at: instructionSet)))
      #expect([8, 4, 2].contains(TileHeight.leftPackedRows(at: instructionSet)))
    }
    let b = [Float](repeating: 1, count: 4)
    #expect(PackedGEMM(b: b, n: 2, k: 2, ldb: 2).tileRows == TileHeight.rows(at: .active))
    #expect(LeftPackedGEMM(a: b, m: 2, k: 2, lda: 2).tileRows == TileHeight.leftPackedRows(at: .active))
  }

  /// Only m×n values may be written: the sentinels in C's slack columns must survive.
  private func expectSlackUntouched(
    _ values: [Float], _ c: GEMMCase, _ sentinel: Float, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for row in 0..<c.m {
      let slack = values[(row * c.ldc + c.n)..<(row * c.ldc + c.ldc)]
      #expect(
        slack.allSatisfy { $0 == sentinel }, "\(label) \(c.testDescription): row \(row) slack overwritten",
        sourceLocation: sourceLocation)
    }
  }
}
