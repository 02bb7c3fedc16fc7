#include <cblas.h>

/// OpenBLAS's own (exported for its fork handlers): joins its worker threads, which it makes
/// again at the next call that wants them. Weak, so that a BLAS without it still links, and
/// `visage_blas_stop_threads` then does nothing.
extern int blas_thread_shutdown_(void) __attribute__((weak));

/// Stops OpenBLAS's idle worker threads; returns 1 if there was such a BLAS, 0 otherwise.
///
/// The pthread build starts a worker for every core but the caller's when it loads, and each
/// spins on `sched_yield` for about a tenth of a second before it sleeps: CPU time a process
/// that never calls BLAS (every kernel set but `.blas`) takes from its own threads. (The
/// OpenMP build has the symbol too, and nothing of its own to stop.) Only before any BLAS
/// call, on one thread: a job running meanwhile would be lost.
static inline int visage_blas_stop_threads(void) {
  if (blas_thread_shutdown_ == NULL) return 0;
  blas_thread_shutdown_();
  return 1;
}
