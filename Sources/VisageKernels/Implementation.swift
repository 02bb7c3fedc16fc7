/// Which family of kernels an operator runs.
///
/// `reference` kernels transliterate TFLite's reference kernels loop for loop and are the
/// specification; `optimized` kernels must agree with them within a reordering tolerance.
/// Each kernel namespace names its twins the same way: a static `reference` and a static
/// `optimized` (`Elementwise`, `Pooling`, `Reduction`, `Resampling`, `LayerNormalization`,
/// `DepthwiseConvolution`, `GEMM`); kernels planned once per layer (`ConvolutionPlan`,
/// `PackedGEMM`, `LeftPackedGEMM`) are objects whose twin is the static `reference` of
/// their namespace (`Convolution.reference`, `GEMM.reference`, `LeftPackedGEMM.reference`).
public enum Implementation: String, Sendable, CaseIterable {
  /// Naive loops that read like TFLite's reference kernels.
  case reference
  /// SIMD kernels with packed-weight GEMM convolutions, falling back to the reference for
  /// shapes they do not cover.
  case optimized
  /// The optimized kernels, but with convolutions run through BLAS sgemm. Only the
  /// convolutions tell it apart from `optimized`; every other operator asks only whether
  /// it runs the reference.
  case blas
}
