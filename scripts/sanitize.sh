#!/usr/bin/env bash
# Builds the unit-test binaries with a sanitizer and runs them; any sanitizer report fails.
#   scripts/sanitize.sh asan   AddressSanitizer + UndefinedBehaviorSanitizer, every unit test
#   scripts/sanitize.sh tsan   ThreadSanitizer, the threaded components (probes: scheduler,
#                              responder, probe service; exporter: HTTP server, reload, daemon)
# Build dirs: build-asan, build-tsan (override with SAN_BUILD_DIR). The lab tools and
# benchmarks are not built there (RXE_BUILD_TOOLS=OFF). Extra args go to every gtest binary.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/sanitize.sh asan|tsan [gtest args]}
shift
case $mode in
  asan)
    flags=address,undefined
    tests=(common_test config_test collectors_test probes_test exporter_test)
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
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
start=$SECONDS
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DRXE_SANITIZE="$flags" -DRXE_BUILD_TOOLS=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target "${tests[@]}"
echo "sanitize.sh $mode: build $((SECONDS - start)) s"

# halt_on_error: the first report fails the binary. No suppressions.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
failed=()
for t in "${tests[@]}"; do
  bin=$(find "$dir/tests" -name "$t" -type f -perm -u+x | head -n 1)
  t0=$SECONDS
  # The gtest binaries run from the source dir (fixtures, as under ctest).
  if "$bin" --gtest_brief=1 "$@" >"$dir/$t.log" 2>&1; then
    echo "sanitize.sh $mode: $t passed ($((SECONDS - t0)) s)"
  else
    echo "sanitize.sh $mode: $t FAILED ($((SECONDS - t0)) s); the end of $dir/$t.log:"
    tail -n 60 "$dir/$t.log"
    failed+=("$t")
  fi
done
echo "sanitize.sh $mode: $((${#tests[@]} - ${#failed[@]})) passed, ${#failed[@]} failed ($((SECONDS - start)) s)"
((${#failed[@]} == 0))
