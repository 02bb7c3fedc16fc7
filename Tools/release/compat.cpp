// Linked into the release builds only (Tools/release/build), which link against an older
// Debian root so that the wheels install on older Linux (docs/install.md). Swift's static
// runtime was compiled against newer libstdc++ headers (GCC 12 for this machine's Swift,
// GCC 14 for Debian's arm64 one), whose inline code calls functions GCC 10's libstdc++
// (GLIBCXX_3.4.28, Debian bullseye) does not have. Each is defined here, hidden, so the
// runtime's calls bind to this copy and the object needs no newer libstdc++ than the root's.
#include <cstdio>
#include <cstdlib>
#include <new>

namespace std {
// GCC 11's libstdc++ (GLIBCXX_3.4.29): thrown when a new[] length overflows. The class
// itself is older (CXXABI_1.3.8).
__attribute__((visibility("hidden"), noreturn)) void __throw_bad_array_new_length() {
  throw bad_array_new_length();
}

// GCC 12's libstdc++ (GLIBCXX_3.4.30): a failed _GLIBCXX_ASSERTIONS check (Debian builds its
// Swift with them on), said as libstdc++ says it, then abort.
__attribute__((visibility("hidden"), noreturn)) void __glibcxx_assert_fail(
    const char *file, int line, const char *function, const char *condition) noexcept {
  std::fprintf(stderr, "%s:%d: %s: Assertion '%s' failed.\n", file, line, function, condition);
  std::abort();
}
}  // namespace std
