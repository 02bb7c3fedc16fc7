// The AArch64 driver's C half: reads a case file the host wrote
// (Tests/VisageTestSupport/AArch64Driver.swift has the format), runs each case through
// visage_aarch64_run (Cases.swift, Embedded Swift) and writes each case's output buffer.
// Usage: driver CASES OUTPUTS. Exit 0, or 2 with a message on a malformed file.
// `driver --platform` prints what CVisageISA and CThreads report on this CPU instead.
#include "CThreads.h"
#include "CVisageISA.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int visage_aarch64_run(long kind, const long *ints, const double *doubles, void *const *buffers);

static FILE *cases;

static void fail(const char *what) {
  fprintf(stderr, "aarch64 driver: %s\n", what);
  exit(2);
}

enum { page = 4096, pattern = 0xA5 };

// One operand: its bytes end where an inaccessible page begins, so a kernel that reads or
// writes past the end faults (qemu enforces page protections), and the bytes before it in
// its first page hold a pattern that a write before the start would change.
typedef struct {
  unsigned char *base;
  size_t length;
  unsigned char *bytes;
} Buffer;

static Buffer guarded(int64_t count) {
  if (count < 0 || count > (int64_t)1 << 32) fail("bad length");
  size_t pages = ((size_t)count + page - 1) / page + 1;
  unsigned char *base = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base + (pages - 1) * page, page, PROT_NONE) != 0) fail("cannot map a buffer");
  Buffer b = {base, pages * page, base + (pages - 1) * page - count};
  memset(base, pattern, (size_t)(b.bytes - base));
  if (fread(b.bytes, 1, (size_t)count, cases) != (size_t)count) fail("truncated case");
  return b;
}

// Whether the bytes before the operand still hold the pattern.
static int intact(Buffer b) {
  for (unsigned char *p = b.base; p < b.bytes; p++)
    if (*p != pattern) return 0;
  return 1;
}

// Reads `count` bytes into a new allocation (at least 64 bytes, so none is null).
static void *read_bytes(int64_t count) {
  if (count < 0 || count > (int64_t)1 << 32) fail("bad length");
  void *p = malloc((size_t)count + 64);
  if (!p || fread(p, 1, (size_t)count, cases) != (size_t)count) fail("truncated case");
  return p;
}

static int64_t read_int(void) {
  int64_t v;
  if (fread(&v, sizeof v, 1, cases) != 1) fail("truncated case");
  return v;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--platform") == 0) {
    visage_spin_hint();
    printf("isa level %d, cpu %d\n", visage_isa_level(), visage_current_cpu());
    return 0;
  }
  if (argc != 3) fail("usage: driver CASES OUTPUTS");
  cases = fopen(argv[1], "rb");
  FILE *outputs = fopen(argv[2], "wb");
  if (!cases || !outputs) fail("cannot open the files");
  char magic[4];
  if (fread(magic, 1, 4, cases) != 4 || memcmp(magic, "VAK1", 4) != 0) fail("not a case file");
  int64_t kind;
  size_t got;
  while ((got = fread(&kind, 1, sizeof kind, cases)) == sizeof kind) {
    int64_t intCount = read_int();
    long *ints = read_bytes(intCount * 8);
    int64_t doubleCount = read_int();
    double *doubles = read_bytes(doubleCount * 8);
    int64_t bufferCount = read_int();
    if (bufferCount < 0 || bufferCount > 16) fail("bad buffer count");
    void *buffers[16] = {0};
    Buffer guards[16] = {{0}};
    int64_t sizes[16] = {0};
    for (int64_t i = 0; i < bufferCount; i++) {
      sizes[i] = read_int();
      // −1: no buffer (a null pointer for an optional operand).
      if (sizes[i] >= 0) {
        guards[i] = guarded(sizes[i]);
        buffers[i] = guards[i].bytes;
      }
    }
    int64_t output = read_int();
    if (output < 0 || output >= bufferCount || !buffers[output]) fail("bad output index");
    if (visage_aarch64_run((long)kind, ints, doubles, buffers) != 0) fail("unknown kind");
    for (int64_t i = 0; i < bufferCount; i++)
      if (buffers[i] && !intact(guards[i])) fail("a kernel wrote before the start of an operand");
    if (fwrite(&sizes[output], sizeof sizes[output], 1, outputs) != 1 ||
        fwrite(buffers[output], 1, (size_t)sizes[output], outputs) != (size_t)sizes[output])
      fail("cannot write the outputs");
    for (int64_t i = 0; i < bufferCount; i++)
      if (buffers[i]) munmap(guards[i].base, guards[i].length);
    free(ints);
    free(doubles);
  }
  if (got != 0) fail("truncated case");
  if (fclose(outputs) != 0) fail("cannot write the outputs");
  return 0;
}
