import Foundation

#if canImport(Accelerate)
  import Accelerate
#else
  import CBLAS
#endif

/// Single-precision matrix multiplication; the only file that talks to BLAS.
///
/// All matrices are row-major. `optimized` computes C = A·Bᵀ (B stored as N×K, the layout of
/// TFLite's OHWI convolution filters) or C = A·B (B stored as K×N).
public enum GEMM {
  /// Computes `c[m×n] = a[m×k] · op(b)` with BLAS, overwriting `c`.
  ///
  /// - Parameters:
  ///   - transposeB: true when `b` is stored N×K (C = A·Bᵀ), false when K×N.
  public static func optimized(
    m: Int, n: Int, k: Int,
    a: UnsafePointer<Float>, lda: Int,
    b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
    c: UnsafeMutablePointer<Float>, ldc: Int
  ) {
    guard m > 0, n > 0 else { return }
    guard k > 0 else {
      for row in 0..<m { (c + row * ldc).update(repeating: 0, count: n) }
      return
    }
    cblas_sgemm(
      CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
      Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
  }

  /// The naive twin of `optimized`, accumulating in k order like TFLite's reference conv.
  public static func reference(
    m: Int, n: Int, k: Int,
    a: UnsafePointer<Float>, lda: Int,
    b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
    c: UnsafeMutablePointer<Float>, ldc: Int
  ) {
    for i in 0..<m {
      for j in 0..<n {
        var sum: Float = 0
        for p in 0..<k {
          sum += a[i * lda + p] * (transposeB ? b[j * ldb + p] : b[p * ldb + j])
        }
        c[i * ldc + j] = sum
      }
    }
  }

  /// Sets how many threads BLAS may use; 1 keeps every kernel on the calling thread.
  ///
  /// The OpenBLAS pthread build otherwise starts one thread per core, which costs more than
  /// it gains on the small matrices of these models unless asked for. Every interpreter
  /// made with `.blas` calls this, so BLAS is reconfigured only when the count changes, one
  /// caller at a time (OpenBLAS's setter is not meant to race with itself).
  public static func setThreadCount(_ count: Int) {
    #if canImport(Accelerate)
      // Accelerate chooses its own threading; nothing to set.
    #else
      let count = max(1, count)
      threadCountLock.lock()
      defer { threadCountLock.unlock() }
      guard count != threadCount else { return }
      threadCount = count
      openblas_set_num_threads(Int32(count))
    #endif
  }

  /// Stops the BLAS library's idle worker threads, for a process that has not yet called
  /// BLAS and may never: OpenBLAS starts one for every core but the caller's when it loads,
  /// and each spins for about a tenth of a second before it sleeps, taking that CPU time from
  /// the caller's own threads. BLAS makes them again if a later call (`.blas` kernels) wants
  /// them. Only before any BLAS call, on one thread: a job running meanwhile would be lost.
  /// The command line calls it first thing; a library host that uses BLAS should not.
  package static func stopIdleThreads() {
    #if !canImport(Accelerate)
      threadCountLock.lock()
      defer { threadCountLock.unlock() }
      _ = visage_blas_stop_threads()
    #endif
  }

  private static let threadCountLock = NSLock()
  /// The count last set, 0 before the first call.
  nonisolated(unsafe) private static var threadCount = 0
}
