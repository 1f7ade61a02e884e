#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/*_fuzz.cc) with clang into build-fuzz and runs each
# for FUZZ_SECONDS (default 20) on top of its seed corpus: tests/fuzz/corpus/<name>/ and the
# fixture dirs below. New inputs go to build-fuzz/corpus/<name>/ (not the repo); a crash, leak,
# sanitizer report or timeout fails (the input is saved as build-fuzz/artifacts/<name>/crash-*).
#   scripts/fuzz.sh                  every harness, 20 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh config_fuzz    one harness, 10 min
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${FUZZ_BUILD_DIR:-build-fuzz}
secs=${FUZZ_SECONDS:-20}
CXX_FUZZ=${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++)}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
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
start=$SECONDS
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DRXE_FUZZ=ON -DRXE_WARNINGS_AS_ERRORS=OFF -DRXE_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
echo "fuzz.sh: build $((SECONDS - start)) s"
dir=$(realpath "$dir")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  name=${t%_fuzz}
  corpus=$dir/corpus/$t
  mkdir -p "$corpus" "$dir/artifacts/$t"
  dirs=("$corpus")
  [[ -d tests/fuzz/corpus/$name ]] && dirs+=("$PWD/tests/fuzz/corpus/$name")
  for d in ${seeds[$t]:-}; do dirs+=("$PWD/$d"); done
  log=$dir/$t.log
  # -timeout: one input may take at most 10 s (the responder harness waits for its reply);
  # -rss_limit_mb: 2 GiB, the machine is shared.
  if (cd "$dir/artifacts/$t" && "$dir/tests/fuzz/$t" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 "${dirs[@]}") >"$log" 2>&1; then
    echo "fuzz.sh: $t passed: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') execs in $secs s, corpus $(find "$corpus" -type f | wc -l) new inputs"
  else
    echo "fuzz.sh: $t FAILED; the end of $log:"
    tail -n 60 "$log"
    failed+=("$t")
  fi
done
echo "fuzz.sh: $((${#targets[@]} - ${#failed[@]})) passed, ${#failed[@]} failed ($((SECONDS - start)) s)"
((${#failed[@]} == 0))
