#!/usr/bin/env bash
# lab: vms=1 timeout=420
# Probe engine on rxe loopback ($LAB_IP): probe_once (client + responder sessions in one
# process) succeeds for all four probe types (send_lat also with completion events, -e), and
# the failure paths give the right reason:
# mtu 4096 with active MTU 1024 -> mtu_above_active, bogus gid_index -> no_gid, unknown
# device -> no_device, cancel / deadline mid-probe -> timeout. Every run must free every
# verbs object: probe_once --leak-check compares `rdma resource show` in-process before
# and after, and the device's counts must be back at the baseline after each run.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

P=$LAB_BUILD/tests/probe_once
BASELINE=""
ORIG_MTU=""
N=0

resources() { rdma resource show "$LAB_RDMA_DEV" | sed 's/ *$//'; }

# run EXPECT ARGS...: runs probe_once; EXPECT is "ok" or a failure reason name. Prints the
# RESULT line; fails unless the result matches, LEAKCHECK ok=1 and the counts are back.
run() {
  local expect=$1 out rc=0 result retry0 rnr0
  shift
  N=$((N + 1))
  out=$LAB_OUT/run$N.txt
  retry0=$(lab_hw_counter completer_retry_err)
  rnr0=$(lab_hw_counter rcvd_rnr_err)
  timeout 120 "$P" --ip "$LAB_IP" --leak-check "$@" >"$out" 2>&1 || rc=$?
  result=$(grep '^RESULT' "$out" || true)
  lab_log "run$N ($*): rc=$rc $result (RC retransmissions +$(($(lab_hw_counter completer_retry_err) - retry0))," \
    "RNR NAKs +$(($(lab_hw_counter rcvd_rnr_err) - rnr0)))"
  [[ -n $result ]] || lab_fail "run$N: no RESULT line: $(cat "$out")"
  if [[ $expect == ok ]]; then
    [[ $rc == 0 && $result == *" ok=1 "* ]] || lab_fail "run$N: expected success: $(cat "$out")"
  else
    [[ $rc == 1 && $result == *" reason=$expect "* ]] || lab_fail "run$N: expected $expect: $(cat "$out")"
  fi
  grep -q '^LEAKCHECK ok=1' "$out" || lab_fail "run$N: verbs objects leaked: $(grep LEAKCHECK "$out")"
  [[ $(resources) == "$BASELINE" ]] || lab_fail "run$N: resources $(resources) != baseline $BASELINE"
}

# field NAME: value of NAME= in the last run's RESULT line.
field() { grep '^RESULT' "$LAB_OUT/run$N.txt" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

restore_mtu() { [[ -z $ORIG_MTU ]] || ip link set "$LAB_NETDEV" mtu "$ORIG_MTU" || true; }

main() {
  [[ -x $P ]] || lab_fail "no $P (build the probe_once target)"
  BASELINE=$(resources)
  lab_log "baseline: $BASELINE"

  # Success paths, all four types (defaults, then the perftest knobs).
  run ok --type write_bw -D 1
  (($(field bytes) > 0)) || lab_fail "write_bw moved no bytes"
  run ok --type write_bw -D 1 -s 256 -I 256 -q 2 -l 4 -Q 8 -t 64
  run ok --type write_bw -D 1 -s 1024 -q 2 -l 3 -Q 5 -t 16  # stop with unsignalled WRs pending
  run ok --type send_bw -D 1
  run ok --type send_bw -D 1 -s 4096 -q 3 -l 2 -Q 2 -t 32
  run ok --type send_lat -n 300
  [[ $(field samples) == 300 ]] || lab_fail "send_lat: want 300 samples"
  run ok --type write_lat -n 300
  run ok --type write_lat -n 300 -s 64 -I 64
  run ok --type send_lat -n 300 -s 4000 -m 1024
  run ok --type send_lat -n 300 -e  # completion events on both sides (perftest -e)

  # Failure paths.
  run no_gid --type send_lat -n 10 -x 999
  run no_device --type send_lat -n 10 -d no_such_rxe
  run timeout --type write_bw -D 5 --cancel-after 700
  [[ $(grep '^RESULT' "$LAB_OUT/run$N.txt") == *'detail="cancelled"'* ]] || lab_fail "cancel detail"
  run timeout --type send_bw -D 5 --timeout 1
  run timeout --type send_lat -n 1000000 --timeout 2
  run timeout --type write_lat -n 1000000 --cancel-after 1000
  run timeout --type send_lat -n 1000000 -e --timeout 2  # a sleeping waiter sees the deadline
  run timeout --type send_lat -n 1000000 -e --cancel-after 1000  # ... and cancel

  ORIG_MTU=$(cat "/sys/class/net/$LAB_NETDEV/mtu")
  trap restore_mtu EXIT
  lab_set_mtu 1500 1024
  lab_log "netdev mtu 1500 -> active_mtu $(lab_active_mtu)"
  run mtu_above_active --type send_lat -n 10 -m 4096
  [[ $(grep '^RESULT' "$LAB_OUT/run$N.txt") == *"Requested mtu is higher than active mtu"* ]] ||
    lab_fail "mtu detail"
  run mtu_above_active --type write_bw -D 1 -m 2048
  run ok --type write_bw -D 1 -m 1024
  run ok --type send_lat -n 100  # auto MTU = 1024
  lab_set_mtu "$ORIG_MTU" 4096
  trap - EXIT

  [[ $(resources) == "$BASELINE" ]] || lab_fail "final resources $(resources) != $BASELINE"
  lab_log "PASS ($N runs)"
}

main "$@"
