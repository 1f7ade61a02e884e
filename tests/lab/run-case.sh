#!/usr/bin/env bash
# ctest entry point for one lab case: tests/lab/run-case.sh CASE_FILE BUILD_DIR
# The case file's header line '# lab: vms=N timeout=S [mem=MB] [smp=N] [hostfwd=H:G]
# [append=KERNEL_ARG]' sets the lab.sh options (defaults vms=1 timeout=300). Output goes to
# BUILD_DIR/lab-out/<case>/.
# The exit status is lab.sh's. One exception: if the case failed and lab.sh's nic_watch.py saw
# a VM's emulated NIC stop taking TX buffers (.lab/vmI.nicstall: a fault of qemu's virtio-net
# that no guest program can cause; tests/lab/README.md, Troubleshooting), the run is kept as
# <case>.nicstall and the case runs once more; the second run's status is the result. Each
# such re-run adds a line to BUILD_DIR/lab-out/nicstall-reruns.log (scripts/test.sh reports it).
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
  local rc=0 stalled
  run_lab "$out" "$build" "$case_file" "${opts[@]}" || rc=$?
  stalled=$(stalled_vms "$out")
  if ((rc != 0)) && [[ -n $stalled ]]; then
    rm -rf "$out.nicstall"
    mv "$out" "$out.nicstall"
    echo "run-case: $name: FAILED while the emulated NIC of $stalled was stuck in qemu (a lab fault, not a result; evidence in $out.nicstall/.lab); running the case once more" |
      tee -a "$build/lab-out/nicstall-reruns.log"
    rc=0
    run_lab "$out" "$build" "$case_file" "${opts[@]}" || rc=$?
  fi
  return "$rc"
}

run_lab() { # out build case_file lab.sh-options...
  local out=$1 build=$2 case_file=$3
  shift 3
  mkdir -p "$out"
  # Stale results of the previous run of this case would confuse barriers and readers.
  find "$out" -mindepth 1 -delete
  echo "run-case: $(basename "$case_file" .sh): lab.sh $* (out $out)"
  LAB_BUILD=$build "$LAB_DIR/lab.sh" "$@" --out "$out" -- "$case_file"
}

# stalled_vms OUT: the VMs (e.g. "vm1") whose NIC nic_watch.py saw stuck, or nothing.
stalled_vms() {
  local f names=()
  for f in "$1"/.lab/vm*.nicstall; do [[ -e $f ]] && names+=("$(basename "$f" .nicstall)"); done
  echo "${names[*]}"
}

main "$@"
