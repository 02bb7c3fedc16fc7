import Testing
import VisageKernels
import VisageTestSupport

// Frozen regressions: when an equivalence grid or a fuzz test finds a failure, copy the
// failing case here under a name that says what broke, with one comment line, so it keeps
// running even if the grids change shape or seeds. Cases live here forever; the grids are
// for finding failures, this file is for remembering them (tract's `suite.add("…")`).
//
// Each case carries its own index (its seed), so it reproduces the exact data the grid
// used. Some entries are seeded here in advance: shapes at the edges of the optimized
// kernels' fast paths that once looked risky in review.

@Suite struct Regressions {
  /// Dilation 2 with stride 2 on a 9-column input, and dilation 3 on a 3-column one: the
  /// depthwise fast path computes the first and last in-image tap by rounding divisions; an
  /// off-by-one there reads past the image or drops a tap. 17 channels cover the SIMD body and
  /// the scalar tail.
  @Test func depthwiseDilatedTapBoundsWithTail() {
    check(
      DepthwiseCase(
        index: 30_000, channels: 17, height: 9, width: 9, filter: 5, stride: 2, padding: .same,
        relu: false, dilation: 2))
    check(
      DepthwiseCase(
        index: 30_001, channels: 9, height: 2, width: 3, filter: 5, stride: 1, padding: .same,
        relu: true, dilation: 3))
  }

  /// A 1×1 filter at stride 2: not pointwise (the im2col path must subsample the input),
  /// though the filter shape alone would suggest the in-place GEMM.
  @Test func convolutionOneByOneStrideTwoIsNotPointwise() {
    let c = ConvolutionCase(
      index: 30_100, channels: 9, height: 7, width: 9, outputChannels: 13, filterHeight: 1,
      filterWidth: 1, stride: 2, padding: .same, relu: false)
    let filter = [Float](repeating: 0, count: 9 * 13)
    let plan = filter.withUnsafeBufferPointer {
      ConvolutionPlan(c.geometry, filter: $0, epilogue: Epilogue.Bound())
    }
    #expect(!plan.isPointwise)
    check(c)
  }

  /// PRELU with the blendshape model's slope shape [1, 1, 2] against [1, 146, 2]: the last
  /// dimension is 2, shorter than one SIMD step, with a stride-0 outer broadcast.
  @Test func preluBlendshapeBroadcast() throws {
    var random = RandomSource(seed: 30_200)
    let x = random.floats(146 * 2, in: -2...2)
    let slope = random.floats(2)
    let reference = try #require(
      Kernel.binary(.prelu, lhs: x, [1, 146, 2], rhs: slope, [1, 1, 2], clamp: .none, .reference))
    let optimized = try #require(
      Kernel.binary(.prelu, lhs: x, [1, 146, 2], rhs: slope, [1, 1, 2], clamp: .none, .optimized))
    expectClose(optimized.values, reference.values, .exact, "prelu [1,146,2] × [1,1,2]", shape: [1, 146, 2])
  }
}
