#!/usr/bin/env bash
# Builds the unit-test binaries with a sanitizer and runs them; any sanitizer report fails.
#   scripts/sanitize.sh asan   AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer),
#                              every unit-test binary
#   scripts/sanitize.sh tsan   ThreadSanitizer, the binaries with the threaded components
#                              (probes: scheduler, responder, probe service, peer watch;
#                              exporter: HTTP server, reload, notify, daemon)
# Build dirs: build-asan, build-tsan (override with SAN_BUILD_DIR), -O1 -g1 (a faster build and
# run than -O2 -g, still line numbers in every report). The lab tools and benchmarks are not
# built there (RXE_BUILD_TOOLS=OFF). Extra args go to every gtest binary.
# Every UBSan check is fatal (-fno-sanitize-recover=all, CMakeLists.txt); no suppressions.
# RXE_STAGE=build only builds, RXE_STAGE=run only runs what an earlier build made (scripts/test.sh
# builds beside ctest at idle priority and runs after it); default: both.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/report.sh
. scripts/lib/report.sh
mode=${1:?usage: scripts/sanitize.sh asan|tsan [gtest args]}
shift
case $mode in
  asan)
    flags=address,undefined
    tests=(common_test config_test collectors_test probes_test sweep_test doctor_test exporter_test)
    ;;
  tsan)
    flags=thread
    tests=(probes_test exporter_test)
    ;;
  *)
    echo "sanitize.sh: unknown mode '$mode' (asan|tsan)" >&2
    exit 2
    ;;
esac
dir=${SAN_BUILD_DIR:-build-$mode}
# ccache, shared with the other clones (without CCACHE_BASEDIR a fresh clone never hits)
# shellcheck source=scripts/lib/ccache.sh
. scripts/lib/ccache.sh
stage=${RXE_STAGE:-all}
report_init "sanitize.sh $mode"
if [[ $stage != run ]]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DRXE_SANITIZE="$flags" -DRXE_BUILD_TOOLS=OFF >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "${tests[@]}"
  echo "sanitize.sh $mode: build $((SECONDS - report_start)) s"
fi
[[ $stage != build ]] || exit 0

# halt_on_error: the first report fails the binary.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
for t in "${tests[@]}"; do
  bin=$(find "$dir/tests" -name "$t" -type f -perm -u+x | head -n 1)
  # The gtest binaries run from the source dir (fixtures, as under ctest).
  report_run "$t" "$dir/$t.log" "$bin" --gtest_brief=1 "$@"
done
report_end
