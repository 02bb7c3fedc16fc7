import Testing
import VisageKernels
import VisageTestSupport

/// One left-packed GEMM shape of the grid and its seeded data: A with three columns of slack,
/// X and C strided past n.
struct LeftPackedCase {
  let m, k, n, ldx, ldc: Int
  let a, x, bias, residual: [Float]

  /// Rows that fill whole panels, end in a short panel of one to seven rows (the one-row
  /// path below four, the padded eight-row tile from four), widths of one to eight vectors
  /// (whole 32-column tiles, a 16-column tail, the one-row kernel's 64), strided X and C.
  /// The four- and two-row tiles meet every remainder of a panel (7 rows: 4, 2, 1).
  static let heights = [1, 3, 4, 7, 8, 9, 12, 97]
  static let shapes = [(1, 16), (5, 32), (19, 48), (97, 64), (7, 80), (33, 128)]
  /// Clamp, whether there is a bias, whether there is a residual.
  static let epilogues = [(Clamp.none, true, true), (.relu, false, false), (.relu6, true, false)]

  init(m: Int, k: Int, n: Int) {
    (self.m, self.k, self.n, ldx, ldc) = (m, k, n, n + 16, n + 32)
    var random = RandomSource(seed: UInt64(m * 1000 + k * 10 + n))
    a = random.floats(m * (k + 3))
    x = random.floats(k * ldx)
    bias = random.floats(m)
    residual = random.floats(m * ldc)
  }
}

/// `LeftPackedGEMM` against its naive twin, bit for bit at every instruction set this CPU
/// runs and every tile height: both sum in k order and finish with bias, residual and
/// clamp in the same order.
@Suite struct LeftPackedGEMMTests {
  /// The grid of `LeftPackedCase`.
  @Test(arguments: LeftPackedCase.heights)
  func matchesTheReference(_ m: Int) {
    for (k, n) in LeftPackedCase.shapes {
      let c = LeftPackedCase(m: m, k: k, n: n)
      let (ldx, ldc, a, x, bias, residual) = (c.ldx, c.ldc, c.a, c.x, c.bias, c.residual)
      for (clamp, withBias, withResidual) in LeftPackedCase.epilogues {
        var expected = [Float](repeating: -7, count: m * ldc)
        let actual = expected
        bias.withUnsafeBufferPointer { b in
          residual.withUnsafeBufferPointer { r in
            let (biasPointer, extra) = (withBias ? b.baseAddress : nil, withResidual ? r.baseAddress : nil)
            LeftPackedGEMM.reference(
              m: m, n: n, k: k, a: a, lda: k + 3, x: x, ldx: ldx,
              epilogue: Epilogue.Bound(bias: biasPointer, residual: extra, clamp: clamp), c: &expected, ldc: ldc)
            for instructionSet in InstructionSet.runnable {
              for tileRows in [8, 4, 2] {
                var actual = actual
                LeftPackedGEMM(
                  a: a, m: m, k: k, lda: k + 3, epilogue: Epilogue.Bound(bias: biasPointer, clamp: clamp),
                  tileRows: tileRows,
                  instructionSet: instructionSet
                ).multiply(n: n, x: x, ldx: ldx, c: &actual, ldc: ldc, residual: extra)
                // The slack columns past n hold the sentinel in both, so this also checks them.
                let label =
                  "m\(m) k\(k) n\(n) \(clamp) bias \(withBias) residual \(withResidual) \(instructionSet) tile \(tileRows)"
                expectClose(actual, expected, .sameOrder(k, at: instructionSet), label, shape: [m, ldc])
              }
            }
          }
        }
      }
    }
  }

  /// Panels done in separate calls (as threads share them) give the same C as one call.
  @Test(arguments: [8, 4, 2])
  func panelsSplitLikeOneCall(_ tileRows: Int) {
    let (m, k, n) = (97, 23, 64)
    var random = RandomSource(seed: 3)
    let a = random.floats(m * k)
    let x = random.floats(k * n)
    let gemm = withEpilogue(bias: random.floats(m), clamp: .relu) {
      LeftPackedGEMM(a: a, m: m, k: k, lda: k, epilogue: $0, tileRows: tileRows)
    }
    var whole = [Float](repeating: 0, count: m * n)
    gemm.multiply(n: n, x: x, ldx: n, c: &whole, ldc: n)
    var pieces = [Float](repeating: .nan, count: m * n)
    for part in [0..<5, 5..<6, 6..<gemm.panelCount] {
      gemm.multiply(n: n, x: x, ldx: n, c: &pieces, ldc: n, panels: part)
    }
    expectClose(pieces, whole, .exact, "split panels, tile \(tileRows)", shape: [m, n])
  }
}
