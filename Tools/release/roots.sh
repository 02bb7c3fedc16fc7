# Sourced by Tools/release/build and Tools/release/test: the Debian roots the release artifacts
# are built against and tested in, made once by mmdebstrap from Debian's registry and kept in
# /var/cache/visage-release (VISAGE_RELEASE_CACHE); Tools/arm64/roots.sh's functions make
# them and enter them.
#
#   bullseye-amd64-sysroot, bullseye-arm64-sysroot   what the wheels link against: glibc 2.31,
#       GCC 10's libstdc++ and Debian bullseye's OpenBLAS, libpng, libjpeg and libdeflate, which
#       the wheels then carry. A program linked against a glibc runs on that glibc and every
#       later one, so the wheels install from bullseye (2.31) up (docs/install.md).
#   <suite>-<arch>-test   clean roots with CPython and pip and no Swift, where the wheels are
#       installed as a user installs them (Tools/release/test).

source "$(dirname "${BASH_SOURCE[0]}")/../arm64/roots.sh"

release_cache=${VISAGE_RELEASE_CACHE:-/var/cache/visage-release}
sysroot_packages=libc6-dev,g++,libopenblas-dev,libpng-dev,libjpeg62-turbo-dev,libdeflate-dev,zlib1g-dev

# sysroot ARCH (amd64 or arm64): makes the bullseye sysroot of ARCH, once, and prints its path.
release_sysroot() {
  local dir=$release_cache/bullseye-$1-sysroot
  make_root "$dir" "$1" "$sysroot_packages" bullseye
  [ -f "$dir/.visage-relative-links" ] || locked "$dir.lock" relative_links "$dir"
  echo "$dir"
}

# release_swift_runtime: Debian sid's arm64 Swift, whose static runtime and resources the
# aarch64 wheels are linked with, unpacked alone (swiftlang and libswiftlang, no dependencies,
# no package scripts: nothing in it runs, so no emulation), once; prints its path. Installing
# it as a root (scripts under qemu) took 400 to 500 s.
release_swift_runtime() {
  local dir=$cache/sid-arm64-swift
  make_root "$dir" arm64 swiftlang,libswiftlang sid extract
  [ -f "$dir/.visage-relative-links" ] || locked "$dir.lock" relative_links "$dir"
  echo "$dir"
}

say() { printf '== release: %s\n' "$*" >&2; }

# The clean test roots' packages: CPython with venv and pip, and no Swift. MediaPipe's aarch64
# wheel (run in bookworm-arm64) loads libGL, GLib and EGL even on the CPU.
test_packages=python3,python3-venv,ca-certificates
mediapipe_packages=$test_packages,libgl1,libglib2.0-0,libegl1,libgles2

# test_root SUITE-ARCH: makes that clean root (Tools/release/test), once, and prints its path.
test_root() {
  local suite=${1%-*} arch=${1#*-} packages=$test_packages dir=$release_cache/$1-test
  [ "$1" = bookworm-arm64 ] && packages=$mediapipe_packages
  make_root "$dir" "$arch" "$packages" "$suite"
  echo "$dir"
}

