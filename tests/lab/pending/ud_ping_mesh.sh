#!/usr/bin/env bash
# lab: vms=3 timeout=720
# ud_ping engine on real rdma_rxe, 3 VMs, full mesh (each VM pings the 2 others every 50 ms
# from ONE long-lived UD QP per device and answers their pings on the same QP; addresses are
# exchanged through $LAB_OUT files by tests/tools/ud_ping_once):
#  1. healthy, 30 s: loss 0 on every pair; RDMA resources (rdma resource show) constant
#     during the run and exactly one QP/CQ/MR/PD above the idle baseline (no per-ping QP);
#  2. netem loss 5 % on vm2's eth0 egress, 60 s (1200 pings per pair): loss 3-7 % on the
#     pairs with vm2, 0 on vm0<->vm1 (every round trip crosses vm2's egress exactly once);
#  3. netem delay 40 ms on vm2, 20 s: the pairs with vm2 are delayed (their 10th-percentile
#     RTT >= 38 ms), vm0<->vm1 is not (10th percentile < 20 ms). Medians are printed, not
#     judged: under TCG on a shared 2-core host they carry the VMs' CPU starvation (the
#     software timestamps include the event loop's wake-up), the low percentile hardly does;
#  4. vm2's ud_ping process is killed 8 s into a 25 s run: vm0 and vm1 see 100 % loss to vm2
#     in every 1 s report from 2 s after the kill on, and still 0 loss between them.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

TOOL=$LAB_BUILD/tests/ud_ping_once
INTERVAL_MS=50

# rdma_res: "pd=N cq=N qp=N mr=N" for rxe0 from `rdma resource show`.
rdma_res() {
  rdma resource show "$LAB_RDMA_DEV" |
    awk '{for (i = 1; i < NF; i++) if ($i ~ /^(pd|cq|qp|mr)$/) printf "%s=%s ", $i, $(i + 1)}'
}

peer_names() { # the other VMs' names (vmI)
  local i
  for ((i = 0; i < LAB_NVMS; i++)); do ((i == LAB_INDEX)) || echo "vm$i"; done
}

peers_of() { # DIR: the other VMs' address files
  local i out=()
  for ((i = 0; i < LAB_NVMS; i++)); do ((i == LAB_INDEX)) || out+=("$1/vm$i"); done
  echo "${out[@]}"
}

# run_phase NAME DURATION_MS [extra tool args]: runs the tool in the background, output in
# $LAB_OUT/NAME.vmI.txt; sets PID.
run_phase() {
  local name=$1 dur=$2
  shift 2
  mkdir -p "$LAB_OUT/$name"
  # shellcheck disable=SC2046
  "$TOOL" --local-ip "$LAB_IP" --publish "$LAB_OUT/$name/vm$LAB_INDEX" --interval-ms $INTERVAL_MS \
    --timeout-ms 2000 --duration-ms "$dur" --report-ms 1000 --linger-ms 10000 "$@" \
    $(peers_of "$LAB_OUT/$name") >"$LAB_OUT/$name.vm$LAB_INDEX.txt" 2>&1 &
  PID=$!
}

field() { # FILE PEER KEY: KEY of the summary line for PEER
  awk -v p="peer=$2" -v k="$3=" '$1 == "summary" && $2 == p {
    for (i = 3; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1"
}

finish_phase() { # NAME: waits for the tool, prints its summary
  local name=$1
  lab_bg_wait "$PID" 200 || lab_fail "$name: ud_ping_once failed: $(tail -n 5 "$LAB_OUT/$name.vm$LAB_INDEX.txt")"
  grep -E '^(endpoint|summary|loop)' "$LAB_OUT/$name.vm$LAB_INDEX.txt" | sed "s/^/$name: /"
}

main() {
  local base res1 res2 res3 want peer loss other rtt1 rtt3 p10 bad=0
  base=$(rdma_res)
  lab_log "idle RDMA resources: $base"
  lab_barrier up 180

  # 1. healthy mesh; resources sampled during the run.
  run_phase healthy 30000
  lab_wait_file "$LAB_OUT/healthy/vm$LAB_INDEX" 60 || lab_fail "endpoint never published"
  sleep 5
  res1=$(rdma_res)
  sleep 10
  res2=$(rdma_res)
  sleep 10
  res3=$(rdma_res)
  finish_phase healthy
  lab_log "RDMA resources during the run: $res1 / $res2 / $res3"
  [[ $res1 == "$res2" && $res2 == "$res3" ]] || lab_fail "RDMA resources changed during the run"
  want=$(awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); printf "%s=%d ", kv[1], kv[2] + 1}}' <<<"$base")
  [[ $res1 == "$want" ]] || lab_fail "want exactly one more pd/cq/qp/mr than idle ($want), got $res1"
  for peer in $(peer_names); do
    loss=$(field "$LAB_OUT/healthy.vm$LAB_INDEX.txt" "$peer" lost)
    [[ $loss == 0 ]] || { lab_log "FAIL healthy: $peer lost $loss"; bad=1; }
    (($(field "$LAB_OUT/healthy.vm$LAB_INDEX.txt" "$peer" received) >= 500)) ||
      { lab_log "FAIL healthy: too few answers from $peer"; bad=1; }
  done
  ((bad == 0)) || lab_fail "healthy mesh"
  [[ $(rdma_res) == "$base" ]] || lab_fail "resources not back to idle after the tool exited: $(rdma_res)"
  lab_barrier healthy-done 120

  # 2. netem loss 5 % on vm2's egress.
  ((LAB_INDEX == 2)) && tc qdisc add dev "$LAB_NETDEV" root netem loss 5%
  lab_barrier loss-on 60
  run_phase loss 60000
  finish_phase loss
  for peer in $(peer_names); do
    loss=$(field "$LAB_OUT/loss.vm$LAB_INDEX.txt" "$peer" loss_pct)
    if ((LAB_INDEX == 2)) || [[ $peer == vm2 ]]; then
      awk -v l="$loss" 'BEGIN {exit !(l >= 3 && l <= 7)}' || { lab_log "FAIL loss: $peer loss $loss % not in 3-7"; bad=1; }
    else
      [[ $loss == 0.00 ]] || { lab_log "FAIL loss: $peer (not through vm2) loss $loss %"; bad=1; }
    fi
  done
  ((bad == 0)) || lab_fail "netem loss"
  lab_barrier loss-done 120

  # 3. netem delay 40 ms on vm2's egress.
  ((LAB_INDEX == 2)) && tc qdisc replace dev "$LAB_NETDEV" root netem delay 40ms
  lab_barrier delay-on 60
  run_phase delay 20000
  finish_phase delay
  for peer in $(peer_names); do
    rtt1=$(field "$LAB_OUT/healthy.vm$LAB_INDEX.txt" "$peer" rtt_median_us)
    rtt3=$(field "$LAB_OUT/delay.vm$LAB_INDEX.txt" "$peer" rtt_median_us)
    p10=$(field "$LAB_OUT/delay.vm$LAB_INDEX.txt" "$peer" rtt_p10_us)
    p10=${p10%.*}
    lab_log "delay: $peer median RTT $rtt1 us (healthy) -> $rtt3 us; 10th percentile $p10 us"
    if ((LAB_INDEX == 2)) || [[ $peer == vm2 ]]; then
      ((p10 >= 38000)) || { lab_log "FAIL delay: $peer p10 RTT $p10 us < 38 ms"; bad=1; }
    else
      ((p10 < 20000)) || { lab_log "FAIL delay: $peer (not through vm2) p10 RTT $p10 us"; bad=1; }
    fi
  done
  ((bad == 0)) || lab_fail "netem delay"
  ((LAB_INDEX == 2)) && tc qdisc del dev "$LAB_NETDEV" root
  lab_barrier delay-done 120

  # 4. kill vm2's ud_ping process 8 s into the run.
  run_phase kill 25000
  if ((LAB_INDEX == 2)); then
    lab_wait_file "$LAB_OUT/kill/vm0" 60 && lab_wait_file "$LAB_OUT/kill/vm1" 60
    sleep 8
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    lab_log "killed ud_ping_once"
    lab_signal killed
  else
    finish_phase kill
    lab_wait_signal killed 60
    # The reports of the last 12 s (the kill happened at most ~10 s after this VM's start).
    other=$((LAB_INDEX == 0 ? 1 : 0))
    awk -v p="peer=vm2" '$1 == "report" && $3 == p' "$LAB_OUT/kill.vm$LAB_INDEX.txt" | tail -n 12 |
      awk '{print}; $5 != "received=0" || $4 == "sent=0" {bad = 1} END {exit bad}' ||
      { lab_log "FAIL kill: vm2 still answered (or was not pinged) in the last 12 s"; bad=1; }
    loss=$(field "$LAB_OUT/kill.vm$LAB_INDEX.txt" "vm$other" lost)
    [[ $loss == 0 ]] || { lab_log "FAIL kill: vm$other (alive) lost $loss"; bad=1; }
    ((bad == 0)) || lab_fail "peer killed"
  fi
  lab_barrier finished 120
  lab_log "PASS"
}

main "$@"
