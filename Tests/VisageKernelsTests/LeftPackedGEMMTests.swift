import Testing
import VisageKernels
import VisageTestSupport

/// `LeftPackedGEMM` against its naive twin, bit for bit at every instruction set this CPU
/// runs and every tile height: both sum in k order and finish with bias, residual and
/// clamp in the same order.
@Suite struct LeftPackedGEMMTests {
  /// Rows that fill whole panels, end in a short panel of one to seven rows (the one-row
  /// path below four, the padded eight-row tile from four), widths of one to eight vectors
  /// (whole 32-column tiles, a 16-column tail, the one-row kernel's 64), strided X and C.
  /// The four- and two-row tiles meet every remainder of a panel (7 rows: 4, 2, 1).
  @Test(arguments: [1, 3, 4, 7, 8, 9, 12, 97])
  func matchesTheReference(_ m: Int) {
    for (k, n) in [(1, 16), (5, 32), (19, 48), (97, 64), (7, 80), (33, 128)] {
      let (ldx, ldc) = (n + 16, n + 32)
      var random = RandomSource(seed: UInt64(m * 1000 + k * 10 + n))
      let a = random.floats(m * (k + 3))
      let x = random.floats(k * ldx)
      let bias = random.floats(m)
      let residual = random.floats(m * ldc)
      for (clamp, withBias, withResidual) in [(Clamp.none, true, true), (.relu, false, false), (.relu6, true, false)] {
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
