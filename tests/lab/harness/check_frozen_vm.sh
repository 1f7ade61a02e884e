#!/usr/bin/env bash
# ctest lab.harness_frozen_vm: lab.sh ends a run at once when a VM is left frozen
# (lab_stop_vm) after every other VM has ended, instead of waiting for the lab timeout; the
# frozen VM counts as failed. Usage: check_frozen_vm.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: check_frozen_vm.sh BUILD_DIR}
log=$build/lab-out/frozen_vm_case.log
mkdir -p "$build/lab-out"
"$here/../run-case.sh" "$here/frozen_vm_case.sh" "$build" >"$log" 2>&1
rc=$?
fail() { echo "check_frozen_vm: $*; lab output:" >&2; cat "$log" >&2; exit 1; }
((rc == 1)) || fail "lab exit status $rc, want 1 (vm0's failure)"
grep -q 'vm1: still frozen (lab_stop_vm) when every other VM had ended' "$log" || fail "no line about ending the frozen vm1"
grep -q 'vm1: frozen, status 1' "$log" || fail "vm1 not reported as frozen with status 1"
! grep -q 'timed out' "$log" || fail "the run waited for the lab timeout"
echo "check_frozen_vm: the frozen vm1 was ended with its peers: $(grep -o 'done in [0-9.]* s' "$log")"
