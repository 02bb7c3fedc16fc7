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
    (1, 64, 100), (31, 33, 3), (100, 24, 72), (16, 16, 9), (23, 40, 27), (8, 17, 5), (5, 3, 0), (0, 4, 4), (4, 0, 4),
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
    GEMM.multiply(
      m: c.m, n: c.n, k: c.k, a: a, lda: c.lda, b: b, ldb: c.ldb, transposeB: c.transposeB,
      c: &optimized, ldc: c.ldc)
    GEMM.multiplyReference(
      m: c.m, n: c.n, k: c.k, a: a, lda: c.lda, b: b, ldb: c.ldb, transposeB: c.transposeB,
      c: &reference, ldc: c.ldc)
    expectClose(optimized, reference, .reordered(c.k), "gemm \(c.testDescription)", shape: [max(c.m, 1), c.ldc])
    expectSlackUntouched(optimized, c, sentinel, "gemm")

    // PackedGEMM computes A·Bᵀ only; it sums in k order like the reference, with every
    // micro-kernel height (the build picks one; all must agree).
    guard c.transposeB else { return }
    for tileRows in [1, 2, 4, 8] {
      let packedGEMM = PackedGEMM(b: b, n: c.n, k: c.k, ldb: c.ldb, tileRows: tileRows)
      var packed = [Float](repeating: sentinel, count: max(c.m * c.ldc, 1))
      packedGEMM.multiply(m: c.m, a: a, lda: c.lda, c: &packed, ldc: c.ldc)
      let label = "packed \(tileRows)-row \(c.testDescription)"
      expectClose(packed, reference, .reordered(c.k), label, shape: [max(c.m, 1), c.ldc])
      expectSlackUntouched(packed, c, sentinel, label)
    }
  }

  /// The measured micro-kernel height is one of the three the measurement tries.
  @Test func preferredTileRowsIsACandidate() {
    #expect([2, 4, 8].contains(PackedGEMM.preferredTileRows))
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
