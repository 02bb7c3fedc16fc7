#ifndef VISAGE_CTHREADS_H
#define VISAGE_CTHREADS_H

/// The CPU the calling thread is running on, or -1 where the platform cannot say.
int visage_current_cpu(void);

/// Moves the calling thread off `cpu` at once (when it is allowed to run elsewhere) and then
/// allows it everywhere it was allowed before, so later placement is the scheduler's again.
/// Returns 1 if the thread moved, 0 otherwise (and always 0 off Linux).
int visage_move_off_cpu(int cpu);

/// A hint to the CPU that the caller is in a spin-wait loop (PAUSE on x86, YIELD on ARM).
static inline void visage_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

#endif
