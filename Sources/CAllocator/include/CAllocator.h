#ifndef VISAGE_CALLOCATOR_H
#define VISAGE_CALLOCATOR_H

/// Has glibc's malloc keep freed blocks of up to 64 MB in one heap (every block, on a glibc
/// that refuses that threshold), untrimmed up to 256 MB, in one arena, instead of mapping every
/// block of 32 MB or more afresh and returning freed memory at once: a batch of large photos
/// then reuses its pages rather than have the kernel fault in and zero new ones for every
/// photo. Returns 1 if glibc took the settings, 0 elsewhere (other C libraries, Apple
/// platforms), where it does nothing.
int visage_retain_freed_memory(void);

/// `fflush(stdout)`: Swift 6 refuses to name the C global `stdout`, and `fflush(NULL)` would
/// lock every open stream, waiting on standard input while another thread blocks reading a
/// record from it. Returns what `fflush` returns (0, or EOF with `errno` set).
int visage_flush_standard_output(void);

#endif
