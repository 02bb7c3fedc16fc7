#!/usr/bin/env bash
# Coverage-guided fuzzing of Visage's parsers with libFuzzer (harnesses in Fuzz/).
#
#   Tools/fuzz.sh TARGET SECONDS     one target for SECONDS of fuzzing
#   Tools/fuzz.sh all SECONDS        every target in turn, SECONDS each
#   Tools/fuzz.sh list               the target names
#   Tools/fuzz.sh build              only build the harnesses (FUZZ_JOBS=N: N compile jobs)
#
# Targets: task-bundle, model, geometry, image, y4m, npy, records, requests.
# Builds the harnesses first (release, -sanitize=fuzzer,address) unless FUZZ_SKIP_BUILD=1.
# Work goes under .build-fuzz/: seeds/<target> (made from the fixtures by Tools/fuzz_seeds.py),
# corpus/<target> (kept between runs, so coverage accumulates), artifacts/<target> (crashing
# inputs) and logs/<target>.log. Each run ends with a line
#   fuzz: TARGET executions=N coverage=EDGES features=F corpus=C crashes=K seconds=S
# and the script exits non-zero if any target crashed, leaked or timed out. A crashing input,
# once fixed, belongs in Tests/Fixtures/fuzz/<target>/, which `swift test` replays
# (FuzzRegressionTests).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(task-bundle model geometry image y4m npy records requests)
harness() {
  case "$1" in
    task-bundle) echo FuzzTaskBundle ;; model) echo FuzzModel ;; geometry) echo FuzzGeometry ;;
    image) echo FuzzImage ;; y4m) echo FuzzY4M ;; npy) echo FuzzNPY ;; records) echo FuzzRecords ;;
    requests) echo FuzzRequests ;;
    *) return 1 ;;
  esac
}

usage() { echo "usage: Tools/fuzz.sh build | Tools/fuzz.sh {all|list|${targets[*]// /|}} SECONDS" >&2; exit 2; }
[ $# -ge 1 ] || usage
if [ "$1" = list ]; then printf '%s\n' "${targets[@]}"; exit 0; fi
build_only=0
if [ "$1" = build ]; then build_only=1; else
  [ $# -eq 2 ] || usage
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: SECONDS must be a positive whole number, got '$2'" >&2; exit 2; }
  if [ "$1" = all ]; then selected=("${targets[@]}"); else harness "$1" >/dev/null || usage; selected=("$1"); fi
  seconds=$2
fi

# Fuzzer instrumentation and AddressSanitizer on every module, the main package's included;
# -enable-testing lets the geometry harness reach the internal metadata parser. SwiftPM gives
# each executable its own `main`, so libFuzzer comes without one (fuzzer_no_main) and the
# harness's `main` starts it (Fuzz/Sources/FuzzDriver).
toolchain_lib=$(dirname "$(dirname "$(command -v swift)")")/lib
no_main=$(ls "$toolchain_lib"/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
[ -n "$no_main" ] || { echo "fuzz: libclang_rt.fuzzer_no_main not found under $toolchain_lib/clang" >&2; exit 1; }
if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  # The build's own status: with pipefail, a `|| true` after the pipeline would run when the
  # build fails and leave PIPESTATUS holding its own 0.
  set +e
  swift build --package-path Fuzz -c release ${FUZZ_JOBS:+-j "$FUZZ_JOBS"} -Xswiftc -enable-testing -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -use-ld=lld -Xlinker "$no_main" -Xlinker -lstdc++ 2>&1 |
    grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting)|ld.gold: warning: Cannot export local symbol'
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 0 ] || { echo "fuzz: building the harnesses failed" >&2; exit 1; }
fi
[ "$build_only" -eq 0 ] || exit 0
bin=$(swift build --package-path Fuzz -c release --show-bin-path)

failed=0
for target in "${selected[@]}"; do
  work=.build-fuzz
  mkdir -p "$work/seeds/$target" "$work/corpus/$target" "$work/artifacts/$target" "$work/logs"
  python3 Tools/fuzz_seeds.py "$target" "$work/seeds/$target"
  log="$work/logs/$target.log"
  stamp="$work/logs/$target.start"
  touch "$stamp"
  # -timeout: one input taking this long is reported as a hang. -rss_limit_mb: the
  # harnesses lower the library's size caps, so more than this is a leak or a cap not applied.
  # Regression inputs seed the search too, so fixed crashes stay covered.
  regressions=()
  if [ -d "Tests/Fixtures/fuzz/$target" ]; then regressions=("Tests/Fixtures/fuzz/$target"); fi
  set +e
  "$bin/$(harness "$target")" "$work/corpus/$target" "$work/seeds/$target" "${regressions[@]}" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$target/" >"$log" 2>&1
  status=$?
  set -e
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  coverage=$(grep -oE '#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE).* cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
  edges=$(sed -nE 's/.* cov: ([0-9]+) ft.*/\1/p' <<<"$coverage")
  features=$(sed -nE 's/.* ft: ([0-9]+) corp.*/\1/p' <<<"$coverage")
  corpus=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$coverage")
  crashes=$(find "$work/artifacts/$target" -type f -newer "$stamp" | wc -l)
  echo "fuzz: $target executions=${executions:-?} coverage=${edges:-?} features=${features:-?} corpus=${corpus:-?} crashes=$crashes seconds=$seconds"
  if [ "$status" -ne 0 ]; then
    failed=1
    echo "fuzz: $target FAILED (exit $status); the report:" >&2
    grep -A40 -m1 -E '^==[0-9]+==ERROR|^SUMMARY|Fatal error|ALARM|out-of-memory' "$log" >&2 || tail -40 "$log" >&2
    echo "fuzz: inputs in $work/artifacts/$target/, log $log" >&2
  fi
done
exit "$failed"
