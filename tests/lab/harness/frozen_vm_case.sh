#!/usr/bin/env bash
# lab: vms=2 timeout=120
# Fixture for check_frozen_vm.sh (not a case of its own): vm0 freezes vm1 and fails, as
# probe_faults did when its probe to the frozen vm1 hung. Nothing can resume vm1 then.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

if ((LAB_INDEX == 0)); then
  lab_stop_vm 1 || lab_fail "could not freeze vm1"
  lab_fail "failing on purpose with vm1 frozen"
fi
sleep 110 # vm1 (frozen): outlives the fixture's timeout unless lab.sh ends it
