# Sourced by the Tools/arm64 scripts: the two Debian trixie roots the arm64 build uses, made
# once and kept outside the work tree (docs/platforms.md), and the way into them.
#
#   $cache/amd64  Swift 6.0.3 (Debian's swiftlang) running natively, which cross-compiles;
#                 also the source of qemu-user 10, a static binary
#   $cache/arm64  the same Swift's arm64 runtime, Foundation and XCTest, and the C libraries:
#                 the sysroot of the cross build and the root the arm64 programs run in
#
# Why cross-compile: Swift 6.0.3 itself under emulation took about 25 minutes for four of the
# package's modules (debug); natively it builds the whole package for arm64 in minutes.
# Why trixie's qemu: bookworm's 7.2 hung a forked compiler driver; 10.0 did not.
# Everything comes from Debian's registry. Needs root: mmdebstrap, chroot, mount, binfmt_misc.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${VISAGE_ARM64_CACHE:-/var/cache/visage-arm64}
# trixie (Debian 13) has Swift 6.0.3: the library, the command line and the tests. sid has
# 6.2.3, which visage-server's dependencies need (Tools/arm64/server sets it).
suite=${VISAGE_ARM64_SUITE:-trixie}
build_root=$cache/$suite-amd64
target_root=$cache/$suite-arm64
# Where the target root appears inside the build root.
sysroot=/opt/arm64
scratch=$repo/.build-arm64
[ "$suite" = trixie ] || scratch=$repo/.build-arm64-$suite
mirror=${VISAGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The packages of each root; a root whose list differs from its stamp is made anew.
build_packages=swiftlang,libc6-dev,g++,lld,pkg-config,git,ca-certificates,qemu-user
build_packages+=,libopenblas-dev,libpng-dev,libjpeg62-turbo-dev,libdeflate-dev
target_packages=swiftlang,libc6-dev,g++,libopenblas-dev,libpng-dev,libjpeg62-turbo-dev,libdeflate-dev

now() { date +%s; }
say() { printf '== arm64: %s\n' "$*" >&2; }

# locked FILE COMMAND...: runs COMMAND (a function too) in a subshell holding FILE's lock, so
# that two scripts (.ci/run makes the roots in the background while steps use them) never make
# or change the same thing at once; the second waits, then finds it done.
locked() {
  local file=$1
  shift
  mkdir -p "$(dirname "$file")"
  (
    flock 9
    "$@"
  ) 9>"$file"
}

# Installs what the host needs to make the roots, once: mmdebstrap, and qemu-user-static,
# with which it runs an arm64 root's package scripts.
host_tools() {
  dpkg -s mmdebstrap qemu-user-static >/dev/null 2>&1 && return
  say "installing mmdebstrap and qemu-user-static"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap qemu-user-static >/dev/null
}

# make_root DIR ARCH PACKAGES [SUITE [VARIANT]]: a root of Debian SUITE ($suite unless given)
# for ARCH with PACKAGES, unless DIR already is one. VARIANT is mmdebstrap's: apt (the
# default) installs PACKAGES with their dependencies and runs their scripts (an arm64 root's
# under emulation, minutes of it); extract only unpacks PACKAGES themselves, for files that
# are read, never run.
make_root() { locked "$1.lock" make_root_unlocked "$@"; }
make_root_unlocked() {
  local dir=$1 arch=$2 packages=$3 suite=${4:-$suite} variant=${5:-apt} stamp="$2 $3"
  [ "$variant" = apt ] || stamp+=" $variant"
  if [ -f "$dir/.visage-packages" ] && [ "$(cat "$dir/.visage-packages")" = "$stamp" ]; then return; fi
  locked /var/lock/visage-host-tools.lock host_tools
  # An arm64 root's package scripts run under qemu: registered first, as roots() does.
  [ "$arch" = amd64 ] || [ "$variant" = extract ] || qemu_registered || {
    make_root "$build_root" amd64 "$build_packages"
    locked "$cache/qemu.lock" register_qemu
  }
  say "making the $arch root in $dir (Debian $suite; a few minutes, once)"
  local start
  start=$(now)
  rm -rf "$dir" "$dir.tmp"
  # sid's Release file carries a Valid-Until date that a registry snapshot may have passed.
  if ! mmdebstrap --quiet --arch="$arch" --variant="$variant" --include="$packages" \
    --aptopt='Acquire::Check-Valid-Until "false"' "$suite" "$dir.tmp" "$mirror" >&2; then
    rm -rf "$dir.tmp"
    say "mmdebstrap could not make $dir"
    return 1
  fi
  echo "$stamp" >"$dir.tmp/.visage-packages"
  mv "$dir.tmp" "$dir"
  say "the $arch root took $(($(now) - start)) s"
}

# Whether this machine runs AArch64 programs through the qemu-aarch64 register_qemu registers.
qemu_registered() {
  local entry=/proc/sys/fs/binfmt_misc/visage-aarch64
  [ -x "$cache/qemu-aarch64" ] && [ -f "$entry" ] && grep -q '^enabled' "$entry" && grep -q "interpreter $cache/qemu-aarch64" "$entry"
}

# Registers the build root's qemu-aarch64 (static; trixie's is 10.0) for AArch64 binaries with
# the F flag, so that it runs them inside a chroot too, and disables any other aarch64 entry
# (such as bookworm's 7.2).
register_qemu() {
  local misc=/proc/sys/fs/binfmt_misc
  [ -f "$misc/register" ] || mount -t binfmt_misc binfmt_misc "$misc"
  local qemu=$cache/qemu-aarch64
  # Copied once: the registered file stays open in the kernel (F), and programs may be running.
  [ -x "$qemu" ] || cp "$build_root/usr/bin/qemu-aarch64" "$qemu"
  local magic='7f454c460201010000000000000000000200b700'
  for entry in "$misc"/*; do
    case $(basename "$entry") in register | status | visage-aarch64) continue ;; esac
    if grep -q "^enabled" "$entry" && grep -q "magic $magic" "$entry"; then echo 0 >"$entry"; fi
  done
  if [ -f "$misc/visage-aarch64" ] && grep -q "interpreter $qemu" "$misc/visage-aarch64"; then return; fi
  [ -f "$misc/visage-aarch64" ] && echo -1 >"$misc/visage-aarch64"
  printf '%s' ':visage-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:'\
'\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:'"$qemu"':FP' >"$misc/register"
}

# relative_links [ROOT]: makes a root's absolute links under /usr, /lib and /lib64 relative
# (the target root's unless ROOT is given): Debian's alternatives (cblas.h, openblas.pc,
# libblas.so) point through /etc/alternatives, and an unmerged root's /lib64 loader to /lib,
# which from the build root, where the root is the sysroot, would be the build root's own.
# Each link is resolved inside the root, hop by hop.
relative_links() {
  local root=${1:-$target_root} link target hop folder folders=()
  for folder in usr lib lib64; do [ -d "$root/$folder" ] && [ ! -L "$root/$folder" ] && folders+=("$root/$folder"); done
  while IFS= read -r -d '' link; do
    target=$link
    while [ -L "$target" ]; do
      hop=$(readlink "$target")
      case $hop in /*) target=$root$hop ;; *) target=$(dirname "$target")/$hop ;; esac
    done
    [ -e "$target" ] && ln -sfn "$(realpath --relative-to="$(dirname "$link")" "$target")" "$link"
  done < <(find "${folders[@]}" -type l -lname '/*' -print0)
  touch "$root/.visage-relative-links"
}

# Both roots, qemu registered, the target root's links made relative: what every script needs
# first.
roots() {
  build_root_ready
  make_root "$target_root" arm64 "$target_packages"
  [ -f "$target_root/.visage-relative-links" ] || locked "$target_root.lock" relative_links "$target_root"
}

# The build root made and able to resolve the packages, and qemu registered.
build_root_ready() {
  [ "$(id -u)" -eq 0 ] || { echo "Tools/arm64 needs root (chroot, mount, binfmt_misc)" >&2; exit 1; }
  make_root "$build_root" amd64 "$build_packages"
  locked "$cache/qemu.lock" register_qemu
  locked "$build_root.lock" copy_git_config
}

# SwiftPM in the build root reads the packages as the host does: the host's git address
# rewrites (the local package mirror) copied in.
copy_git_config() {
  local config=$build_root/etc/gitconfig
  rm -f "$config"
  git config --file "$config" --add safe.directory '*'
  git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
    git config --file "$config" --add "$key" "$value"
  done
}

# The environment the programs in a root see: only these variables are passed in.
passed_variables=(VISAGE_MAX_ISA VISAGE_WEIGHTS VISAGE_TILE_ROWS VISAGE_STRESS_SECONDS VISAGE_FLIP_CHUNKS VISAGE_TEST_TIME_SCALE)

# in_root ROOT COMMAND: runs COMMAND (a bash script) in ROOT with /proc, /dev, the work tree
# at its own path and, in the build root, the package mirror, the target root and
# $extra_binds; in a private mount namespace, so nothing stays mounted afterwards.
in_root() {
  local root=$1 command=$2
  # /sys too: MediaPipe's tcmalloc counts the CPUs there (Tools/release/test runs it).
  local mounts="mount -t proc proc '$root/proc' && mount --rbind /dev '$root/dev' && mount -t sysfs sysfs '$root/sys'"
  mounts+=" && mkdir -p '$root$repo' && mount --bind '$repo' '$root$repo'"
  if [ "$root" = "$build_root" ]; then
    mounts+=" && mkdir -p '$root$sysroot' && mount --bind '$target_root' '$root$sysroot'"
    if [ -d /opt/swift-packages ]; then
      mounts+=" && mkdir -p '$root/opt/swift-packages' && mount --bind /opt/swift-packages '$root/opt/swift-packages'"
    fi
    # More folders, as SOURCE:TARGET words (Tools/release/build's older sysroot).
    local bind
    for bind in ${extra_binds:-}; do
      mounts+=" && mkdir -p '$root${bind#*:}' && mount --bind '${bind%%:*}' '$root${bind#*:}'"
    done
  fi
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  local environment=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8)
  local name
  for name in "${passed_variables[@]}"; do
    [ -n "${!name:-}" ] && environment+=("$name=${!name}")
  done
  # shellcheck disable=SC2016
  unshare --mount --propagation private bash -c "$mounts"' && exec chroot "$0" /usr/bin/env -i "${@:2}" /bin/bash -c "$1"' \
    "$root" "$command" "${environment[@]}"
}

# cross_build SCRATCH ARGUMENTS: `swift build -c release ARGUMENTS` for arm64 in the build root,
# into SCRATCH. SwiftPM's cross-compilation destination: the arm64 root as the SDK, its Swift resources
# (standard library, Foundation, XCTest, Testing, the glibc module map), lld, and a run path
# at which the arm64 root has the Swift runtime.
cross_build() {
  local scratch=$1
  shift
  mkdir -p "$scratch"
  cat >"$scratch/destination.json" <<JSON
{
  "version": 1,
  "sdk": "$sysroot",
  "toolchain-bin-dir": "/usr/libexec/swift/bin",
  "target": "aarch64-unknown-linux-gnu",
  "extra-cc-flags": [],
  "extra-swiftc-flags": [
    "-sdk", "$sysroot", "-resource-dir", "$sysroot/usr/libexec/swift/lib/swift", "-use-ld=lld",
    "-no-toolchain-stdlib-rpath", "-Xlinker", "-rpath", "-Xlinker", "/usr/libexec/swift/lib/swift/linux"
  ],
  "extra-cpp-flags": []
}
JSON

  local start arguments
  start=$(now)
  arguments=$(printf ' %q' "$@")
  in_root "$build_root" "cd '$repo' && VISAGE_TARGET_ARCH=arm64 swift build -c release --scratch-path '$scratch' \
  --destination '$scratch/destination.json' --pkg-config-path '$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig' $arguments"
  say "the cross build took $(($(now) - start)) s"
}
