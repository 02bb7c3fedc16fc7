/// Which family of kernels an operator runs.
///
/// `reference` kernels transliterate TFLite's reference kernels loop for loop and are the
/// specification; `optimized` kernels must agree with them within a reordering tolerance.
public enum Implementation: String, Sendable, CaseIterable {
  /// Naive loops that read like TFLite's reference kernels.
  case reference
  /// BLAS and SIMD kernels, with the reference as fallback for shapes they do not cover.
  case optimized
}
