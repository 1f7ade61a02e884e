#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/*_fuzz.cc) with clang into build-fuzz and runs each
# for FUZZ_SECONDS (default 20) on top of its seed corpus: tests/fuzz/corpus/<name>/ and the
# fixture dirs below. New inputs go to build-fuzz/corpus/<name>/ (not the repo); a crash, leak,
# sanitizer report or timeout fails (the input is saved as build-fuzz/artifacts/<name>/crash-*).
#   scripts/fuzz.sh                  every harness, 20 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh config_fuzz    one harness, 10 min
#   RXE_STAGE=build|run scripts/fuzz.sh              only build / only run (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/report.sh
. scripts/lib/report.sh
dir=${FUZZ_BUILD_DIR:-build-fuzz}
secs=${FUZZ_SECONDS:-20}
CXX_FUZZ=${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++)}
# ccache, shared with the other clones (without CCACHE_BASEDIR a fresh clone never hits)
# shellcheck source=scripts/lib/ccache.sh
. scripts/lib/ccache.sh
# Seeds from the fixtures, per harness (beside tests/fuzz/corpus/<name>).
declare -A seeds=(
  [config_fuzz]="tests/fixtures/config config/examples"
  [rdma_netlink_fuzz]="tests/fixtures/netlink"
  [sysfs_parse_fuzz]="tests/fixtures/sys tests/fixtures/captured"
)
all=()
for src in tests/fuzz/*_fuzz.cc; do all+=("$(basename "$src" .cc)"); done
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
# FUZZ_JOBS harnesses fuzz at once (default: the number of cores; each is one process).
stage=${RXE_STAGE:-all}
report_init fuzz.sh "${FUZZ_JOBS:-$(nproc)}"
if [[ $stage != run ]]; then
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DRXE_FUZZ=ON -DRXE_WARNINGS_AS_ERRORS=OFF -DRXE_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
  echo "fuzz.sh: build $((SECONDS - report_start)) s"
fi
[[ $stage != build ]] || exit 0
dir=$(realpath "$dir")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
report_detail() {
  echo "$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$2" | grep -o '[0-9]*$') execs," \
    "$(find "$dir/corpus/$1" -type f | wc -l) inputs in the corpus"
}
# -timeout: one input may take at most 10 s (the responder harness waits for its reply);
# -rss_limit_mb: 2 GiB, the machine is shared.
fuzz_one() (
  cd "$dir/artifacts/$1" && exec "$dir/tests/fuzz/$1" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 "${@:2}"
)
for t in "${targets[@]}"; do
  name=${t%_fuzz}
  mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
  dirs=("$dir/corpus/$t")
  [[ -d tests/fuzz/corpus/$name ]] && dirs+=("$PWD/tests/fuzz/corpus/$name")
  for d in ${seeds[$t]:-}; do dirs+=("$PWD/$d"); done
  report_run "$t" "$dir/$t.log" fuzz_one "$t" "${dirs[@]}"
done
report_end
