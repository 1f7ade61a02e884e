#!/usr/bin/env bash
# lab: vms=2 timeout=300
# The prober's qp_timeout reaches the responder (HELLO option, docs/protocol.md). vm1 runs the
# daemon as responder; vm0 delays its egress by 150 ms (netem), so every packet vm1 sends waits
# >= 150 ms for its ACK, longer than the default local ACK timeout (14: ~67 ms). vm0 runs two
# send_lat probes of N iterations (tests/tools/probe_peer_once: RunProbe, as the daemon):
#  1. qp_timeout 14 (default, not sent): both sides retransmit. Asserted: vm1 retransmits
#     (completer_retry_err) and vm0 receives duplicates (duplicate_request), >= N/2 each;
#     this shows the counters see the effect.
#  2. qp_timeout 20 (~4.3 s, sent in HELLO): asserted <= 3 retransmissions on each side and
#     <= 3 duplicates at vm0. Before the option the responder kept 14 and its pongs were
#     retransmitted as in run 1 (first lab run: 30 at 14). 20, not 18: rxe re-arms its retry
#     timer on every send and does not stop it on the last ACK, so an expiry that finds the
#     next ping outstanding retransmits it; at 18 (~1.07 s) that happened 2 times per side in
#     a 3.3 s probe, at 20 the probe ends before the timer can expire.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
PEER_ONCE=$LAB_BUILD/tests/probe_peer_once
DELAY_MS=150
N=20
SAMPLES=4 # vm1 samples its retry counter before and after each of the two probes
# dump_counters FILE: every hw counter of this VM's rxe port as "name:value" lines.
dump_counters() { grep -H . /sys/class/infiniband/"$LAB_RDMA_DEV"/ports/1/hw_counters/* | sed 's|.*/||' >"$1"; }

if ((LAB_INDEX == 1)); then
  [[ -x $EXPORTER ]] || lab_fail "no $EXPORTER"
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}' >"$LAB_OUT/responder.yml"
  "$EXPORTER" --config.file "$LAB_OUT/responder.yml" >"$LAB_OUT/exporter.vm1.log" 2>&1 &
  DAEMON=$!
  trap 'rc=$?; kill "$DAEMON" 2>/dev/null || true; lab__on_exit $rc' EXIT
  lab_wait_listen 19792 60 || lab_fail "responder did not listen: $(tail -n 5 "$LAB_OUT/exporter.vm1.log")"
  lab_signal responder-up
  for ((i = 0; i < SAMPLES; i++)); do
    lab_wait_signal "sample$i" 240 || exit 1
    lab_hw_counter completer_retry_err >"$LAB_OUT/vm1.retry.$i"
    dump_counters "$LAB_OUT/vm1.all.$i"
    lab_signal "sampled$i"
  done
  kill -0 "$DAEMON" || lab_fail "the responder daemon died"
  lab_log PASS
  exit 0
fi

[[ -x $PEER_ONCE ]] || lab_fail "no $PEER_ONCE"
PEER=${LAB_IPS##* }
S=0
# sample: sets D, R0, R1 to vm0's duplicates received, vm0's and vm1's retransmissions now
# (and keeps every hw counter of both in $LAB_OUT/vm{0,1}.all.N for the log).
sample() {
  dump_counters "$LAB_OUT/vm0.all.$S"
  lab_signal "sample$S"
  lab_wait_signal "sampled$S" 60 || lab_fail "vm1 did not sample its counters"
  D=$(lab_hw_counter duplicate_request) R0=$(lab_hw_counter completer_retry_err)
  R1=$(cat "$LAB_OUT/vm1.retry.$S")
  S=$((S + 1))
}
# changed VM A B: the hw counters of VM that changed between samples A and B ("name +delta").
changed() {
  paste -d: "$LAB_OUT/$1.all.$2" "$LAB_OUT/$1.all.$3" | awk -F: '$4 != $2 {printf "%s +%d ", $1, $4 - $2}'
}
# probe NAME [ARGS]: one send_lat probe of N iterations; sets DUP, RETRY0, RETRY1 (deltas).
probe() {
  local name=$1 d0 r0 q0 rc=0
  shift
  sample
  d0=$D r0=$R0 q0=$R1
  timeout 120 "$PEER_ONCE" --peer "$PEER" --type send_lat -n "$N" --timeout 60 "$@" >"$LAB_OUT/$name.txt" 2>&1 || rc=$?
  sample
  ((rc == 0)) || lab_fail "$name: probe failed (rc $rc): $(cat "$LAB_OUT/$name.txt")"
  DUP=$((D - d0)) RETRY0=$((R0 - r0)) RETRY1=$((R1 - q0))
  lab_log "$name ($*): vm0 duplicates received +$DUP, vm0 retransmissions +$RETRY0, vm1 retransmissions +$RETRY1;" \
    "t_typical $(awk '/^ *[0-9]/ {v = $5} END {print v}' "$LAB_OUT/$name.txt") us"
  lab_log "  vm0 counters: $(changed vm0 $((S - 2)) $((S - 1)))"
  lab_log "  vm1 counters: $(changed vm1 $((S - 2)) $((S - 1)))"
}

lab_wait_signal responder-up 120 || exit 1
tc qdisc add dev "$LAB_NETDEV" root netem delay "${DELAY_MS}ms"
lab_log "netem: $(tc qdisc show dev "$LAB_NETDEV" | head -n 1)"

probe default
((RETRY1 >= N / 2)) || lab_fail "qp_timeout 14: vm1 retransmitted only $RETRY1 times for $N pongs whose ACK takes ${DELAY_MS} ms (expected >= $((N / 2)))"
((DUP >= N / 2)) || lab_fail "qp_timeout 14: vm0 received only $DUP duplicates (expected >= $((N / 2)))"

probe qp_timeout20 -u 20
((RETRY1 <= 3)) || lab_fail "qp_timeout 20: the responder retransmitted $RETRY1 times: it did not use the prober's qp_timeout"
((DUP <= 3)) || lab_fail "qp_timeout 20: vm0 received $DUP duplicates (responder retransmissions)"
((RETRY0 <= 3)) || lab_fail "qp_timeout 20: vm0 retransmitted $RETRY0 times"
tc qdisc del dev "$LAB_NETDEV" root
lab_log PASS
