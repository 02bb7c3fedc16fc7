// Linked into the aarch64 release builds only (Tools/release/build), which link Debian's
// arm64 Swift runtime against Debian bullseye's glibc 2.31 so that the wheel installs on older
// Linux (docs/install.md). That runtime's static archives were compiled against glibc 2.38 or
// later, whose headers send these calls to functions glibc 2.31 does not have. Each is
// defined here, hidden, on top of what glibc 2.31 has, so the calls bind to this copy.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIDDEN __attribute__((visibility("hidden")))

// glibc 2.38's C23 forms of strtol and sscanf, which also read a 0b binary prefix (with base 0
// or 2) and %b; what the runtime reads (numbers in /proc files, ICU's data) never has one.
HIDDEN long __isoc23_strtol(const char *text, char **end, int base) { return strtol(text, end, base); }
HIDDEN unsigned long __isoc23_strtoul(const char *text, char **end, int base) {
  return strtoul(text, end, base);
}
HIDDEN long long __isoc23_strtoll(const char *text, char **end, int base) { return strtoll(text, end, base); }
HIDDEN int __isoc23_sscanf(const char *text, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int count = vsscanf(text, format, arguments);
  va_end(arguments);
  return count;
}

// glibc 2.38's strlcpy and strlcat (BSD's): copy or append into a buffer of `size` bytes,
// always ending it with a NUL when size > 0; return the length of the string they tried to
// make, so that a result >= size says it was cut short.
HIDDEN size_t strlcpy(char *destination, const char *source, size_t size) {
  size_t length = strlen(source);
  if (size > 0) {
    size_t copied = length < size - 1 ? length : size - 1;
    memcpy(destination, source, copied);
    destination[copied] = '\0';
  }
  return length;
}

HIDDEN size_t strlcat(char *destination, const char *source, size_t size) {
  size_t used = strnlen(destination, size);
  if (used == size) return size + strlen(source);
  return used + strlcpy(destination + used, source, size - used);
}
