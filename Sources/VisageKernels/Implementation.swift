/// Which family of kernels an operator runs.
///
/// `reference` kernels transliterate TFLite's reference kernels loop for loop and are the
/// specification; `optimized` kernels must agree with them within a reordering tolerance.
public enum Implementation: String, Sendable, CaseIterable {
  /// Naive loops that read like TFLite's reference kernels.
  case reference
  /// SIMD kernels with packed-weight GEMM convolutions, falling back to the reference for
  /// shapes they do not cover.
  case optimized
  /// The optimized kernels, but with convolutions run through BLAS sgemm.
  case blas
}
