#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, then runs every unit test and every lab
# test (real rdma_rxe in qemu VMs) through ctest. Before ctest it runs the unit tests under
# AddressSanitizer+UBSan and the threaded ones under ThreadSanitizer (scripts/sanitize.sh), and
# every libFuzzer harness for 20 s on its seed corpus (scripts/fuzz.sh); a failure there fails
# the run after ctest (whose summary stays last). Timings: tests/fuzz/README.md.
#   scripts/test.sh                    all tests (CI: .ci/run)
#   scripts/test.sh -L unit            only unit tests (any ctest arguments are passed on)
#   RXE_SANITIZERS=0 RXE_FUZZ=0 scripts/test.sh -L unit    skip the sanitizer / fuzz stages
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
extra_failed=()
if [[ ${RXE_SANITIZERS:-1} != 0 ]]; then
  scripts/sanitize.sh asan || extra_failed+=("sanitize.sh asan")
  scripts/sanitize.sh tsan || extra_failed+=("sanitize.sh tsan")
fi
if [[ ${RXE_FUZZ:-1} != 0 ]]; then
  scripts/fuzz.sh || extra_failed+=("fuzz.sh")
fi
# Kernel + initramfs for the lab (cached after the first run).
tests/lab/fetch-kernel.sh
rc=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" "$@" || rc=$?
if ((${#extra_failed[@]})); then
  echo "test.sh: FAILED besides ctest: ${extra_failed[*]} (their output is above)" >&2
  exit 1
fi
exit "$rc"
