#!/usr/bin/env bash
# ctest entry point for one lab case: tests/lab/run-case.sh CASE_FILE BUILD_DIR
# The case file's header line '# lab: vms=N timeout=S [mem=MB] [smp=N] [hostfwd=H:G]
# [append=KERNEL_ARG]' sets the lab.sh options (defaults vms=1 timeout=300). Output goes to
# BUILD_DIR/lab-out/<case>/.
# The exit status is lab.sh's.
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "run-case: $*" >&2; exit 2; }

# Prints the lab.sh options for the '# lab:' header of $1.
header_opts() {
  local line kv key val
  local -a opts=(--vms 1 --timeout 300)
  line=$(grep -m1 -E '^#[[:space:]]*lab:' "$1" || true)
  for kv in ${line#*lab:}; do
    key=${kv%%=*} val=${kv#*=}
    [[ $kv == *=* && -n $val ]] || die "$1: bad '# lab:' entry '$kv'"
    case $key in
      vms) opts[1]=$val ;;
      timeout) opts[3]=$val ;;
      mem) opts+=(--mem "$val") ;;
      smp) opts+=(--smp "$val") ;;
      hostfwd) opts+=(--hostfwd "$val") ;;
      append) opts+=(--append "$val") ;;
      *) die "$1: unknown '# lab:' key '$key'" ;;
    esac
  done
  printf '%s\n' "${opts[@]}"
}

main() {
  (($# == 2)) || die "usage: run-case.sh CASE_FILE BUILD_DIR"
  local case_file build name out
  case_file=$(realpath "$1")
  build=$(realpath "$2")
  [[ -f $case_file ]] || die "no such case: $1"
  [[ -d $build ]] || die "no such build dir: $2"
  name=$(basename "$case_file" .sh)
  out=$build/lab-out/$name
  local -a opts
  mapfile -t opts < <(header_opts "$case_file")
  ((${#opts[@]} >= 4)) || exit 2
  "$LAB_DIR/fetch-kernel.sh"
  mkdir -p "$out"
  # Stale results of the previous run of this case would confuse barriers and readers.
  find "$out" -mindepth 1 -delete
  echo "run-case: $name: lab.sh ${opts[*]} (out $out)"
  LAB_BUILD=$build exec "$LAB_DIR/lab.sh" "${opts[@]}" --out "$out" -- "$case_file"
}

main "$@"
