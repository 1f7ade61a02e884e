#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, then runs every unit test and every lab
# test (real rdma_rxe in qemu VMs) through ctest. After ctest it runs the unit tests under
# AddressSanitizer+UBSan and the threaded ones under ThreadSanitizer (scripts/sanitize.sh), and
# every libFuzzer harness for 20 s on its seed corpus (scripts/fuzz.sh); any failure there fails
# the run, and the last lines sum up every stage. Timings: tests/fuzz/README.md.
#   scripts/test.sh                    all tests (CI: .ci/run)
#   scripts/test.sh -L unit            only unit tests (any ctest arguments are passed on)
#   RXE_SANITIZERS=0 RXE_FUZZ=0 scripts/test.sh -L unit    skip the sanitizer / fuzz stages
# The three instrumented builds (~20 CPU-minutes cold) run in the background while ctest runs,
# at SCHED_IDLE and nice 19, so they only get CPU the lab's VMs leave: the TCG VMs keep both
# cores busy much of the time (runs J and K, tests/fuzz/README.md: the ASan build finished
# beside ctest, TSan and fuzz mostly after it). Run one after the other, a clean-clone run took
# 67 min on the CI host; overlapped, and with the lab's harness forking less, 47 min (stop 24).
# The instrumented binaries then run in the foreground, after ctest, at normal priority:
# their timeouts must not depend on what the lab leaves them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
t0=$SECONDS

stages=()
[[ ${RXE_SANITIZERS:-1} == 0 ]] || stages+=("sanitize.sh asan" "sanitize.sh tsan")
[[ ${RXE_FUZZ:-1} == 0 ]] || stages+=("fuzz.sh")

build_log=$BUILD_DIR/instrumented-builds.log
build_pid=""
if ((${#stages[@]})); then
  # shellcheck source=scripts/lib/idle.sh
  . scripts/lib/idle.sh
  echo "test.sh: building ${stages[*]} in the background (${idle[*]}), log: $build_log"
  (
    for st in "${stages[@]}"; do
      # shellcheck disable=SC2086 # "sanitize.sh asan" -> script and mode
      RXE_STAGE=build "${idle[@]}" bash scripts/$st || echo "instrumented build FAILED: $st"
    done
    echo "instrumented builds: done after $((SECONDS - t0)) s"
  ) >"$build_log" 2>&1 &
  build_pid=$!
fi

# Kernel + initramfs for the lab (cached after the first run).
tests/lab/fetch-kernel.sh
rc=0
reruns=$BUILD_DIR/lab-out/nicstall-reruns.log # written by tests/lab/run-case.sh
rm -f "$reruns"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" "$@" || rc=$?
summary=("ctest: exit $rc after $((SECONDS - t0)) s")
if [[ -s $reruns ]]; then
  summary+=("lab cases run again after an emulated NIC stall (qemu, not the product): $(wc -l <"$reruns")")
  sed 's/^/test.sh: /' "$reruns"
fi

failed=()
if [[ -n $build_pid ]]; then
  t1=$SECONDS
  wait "$build_pid"
  echo "test.sh: waited $((SECONDS - t1)) s after ctest for the instrumented builds; their output" \
    "without compiler progress lines (all of it: $build_log):"
  grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)' "$build_log" || true
  summary+=("instrumented builds (beside ctest): $(tail -n 1 "$build_log")")
  for st in "${stages[@]}"; do
    # shellcheck disable=SC2086 # "sanitize.sh asan" -> script and mode
    if grep -qx "instrumented build FAILED: $st" "$build_log"; then
      failed+=("$st (build)")
    elif ! RXE_STAGE=run bash scripts/$st; then
      failed+=("$st")
    fi
  done
  summary+=("sanitizer and fuzz runs: ${#stages[@]} stages, ${#failed[@]} failed${failed[*]:+: ${failed[*]}}")
fi
summary+=("total: $((SECONDS - t0)) s after the main build")
printf 'test.sh: %s\n' "${summary[@]}"
((${#failed[@]} == 0)) || exit 1
exit "$rc"
