#!/usr/bin/env bash
# lab: vms=3 timeout=480
# Probe faults with the real daemon. vm0 probes vm1 ("victim": write_bw, 10 s) and vm2
# ("steady": send_lat); vm1 and vm2 only run the responder.
#  (c) vm2's daemon is stopped (probes fail: connection refused) and started again (the VM
#      stays up): vm0 must probe it successfully again within two intervals of the module.
#  (b) vm1 is hard-killed (qemu SIGKILL) while vm0's bandwidth probe to it is moving data
#      (control connection open, rxe0 sending, vm1's rxe_responder_active_sessions 1): the probe
#      must fail with a reason (rxe_probe_failures_total{reason}), the daemon must keep
#      running and keep probing vm2 successfully, and vm0's RDMA resource counts (rdma
#      resource show, and the exporter's rxe_device_resources) must return to their
#      baseline from before the daemon started (no QP/CQ/MR/PD/context leaked).
# (c) runs first, right after a bandwidth probe, so that no bandwidth probe (which holds
# rxe0 and defers latency probes) falls into the recovery time measured.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
LAT_INTERVAL=10
RES_KINDS=(pd cq qp mr ctx)
DAEMON=
PROM=$LAB_OUT/metrics.vm$LAB_INDEX.prom

on_exit() {
  local rc=$?
  if [[ -n $DAEMON ]]; then
    ((LAB_INDEX != 0)) ||
      curl -sf --max-time 20 http://127.0.0.1:19791/debug/probes >"$LAB_OUT/debug.vm0.json" || true
    kill "$DAEMON" 2>/dev/null || true
    wait "$DAEMON" 2>/dev/null || true
  fi
  lab__on_exit "$rc"
}
trap on_exit EXIT

start_daemon() { # start_daemon CONFIG
  "$EXPORTER" --config.file "$1" >>"$LAB_OUT/exporter.vm$LAB_INDEX.log" 2>&1 &
  DAEMON=$!
  lab_wait_listen 19791 60 || lab_fail "exporter did not listen: $(tail -n 5 "$LAB_OUT/exporter.vm$LAB_INDEX.log")"
}
stop_daemon() {
  kill -TERM "$DAEMON"
  lab_bg_wait "$DAEMON" 10 || lab_fail "daemon did not stop on SIGTERM"
  DAEMON=
}
scrape() { # scrape: this VM's /metrics into $PROM
  curl -sf --max-time 20 http://127.0.0.1:19791/metrics >"$PROM.tmp" && mv -f "$PROM.tmp" "$PROM"
}
val() { awk -v s="$1" '$1 == s {print $2; exit}' "$PROM"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
# failures MODULE PEER: "reason=count ..." of the pair's non-zero failure counters.
failures() {
  awk -v p="rxe_probe_failures_total{module=\"$1\",peer=\"$2\",reason=\"" \
    'index($1, p) == 1 && $2 > 0 {r = substr($1, length(p) + 1); sub(/"}$/, "", r); printf "%s=%s ", r, $2}' "$PROM"
}
# rdma_res: "pd=N cq=N qp=N mr=N ctx=N" for rxe0 from `rdma resource show`.
rdma_res() {
  local line k out=""
  line=$(rdma resource show "$LAB_RDMA_DEV") || return 1
  for k in "${RES_KINDS[@]}"; do
    out+="$k=$(awk -v k="$k" '{for (i = 1; i < NF; i++) if ($i == k) {print $(i + 1); exit}}' <<<"$line") "
  done
  echo "${out% }"
}
# metric_res: the same from the exporter's rxe_device_resources (scraped into $PROM).
metric_res() {
  local k out=""
  for k in "${RES_KINDS[@]}"; do out+="$k=$(val "rxe_device_resources{device=\"$LAB_RDMA_DEV\",resource=\"$k\"}") "; done
  echo "${out% }"
}
# wait_success MODULE PEER AFTER TIMEOUT: waits until the pair's probes_total > AFTER and its
# last probe succeeded; prints nothing, returns 1 on timeout.
wait_success() {
  local l="module=\"$1\",peer=\"$2\"" end=$((SECONDS + $4)) n
  while ((SECONDS < end)); do
    if scrape; then
      n=$(val "rxe_probes_total{$l}")
      ((${n:-0} > $3)) && [[ $(val "rxe_probe_success{$l}") == 1 ]] && return 0
    fi
    sleep 0.5
  done
  return 1
}

responder_vm() {
  local cfg=$LAB_OUT/responder.vm$LAB_INDEX.yml
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}' >"$cfg"
  start_daemon "$cfg"
  lab_wait_listen 19792 30 || lab_fail "responder did not listen"
  lab_barrier up 180
  if ((LAB_INDEX == 1)); then
    # The victim: vm0 kills this VM mid-probe; reaching the end of the wait is a failure.
    lab_wait_signal never 420
    lab_fail "vm1 was not killed"
  fi
  lab_wait_signal stop-steady 180
  stop_daemon
  lab_log "responder stopped"
  lab_signal steady-stopped
  lab_wait_signal start-steady 120
  start_daemon "$cfg"
  lab_wait_listen 19792 30 || lab_fail "responder did not listen again"
  lab_log "responder started again"
  lab_signal steady-up
  lab_wait_signal all-done 300
  stop_daemon
  lab_log PASS
}

prober_vm() {
  local cfg=$LAB_OUT/prober.yml base t0 t1 n
  cat >"$cfg" <<EOF
responder: {enabled: false}
prober: {max_concurrent: 2, history_per_pair: 50}
peers:
  - {name: victim, address: 10.77.0.11}
  - {name: steady, address: 10.77.0.12}
modules:
  bw: {type: write_bw, interval: 40s, timeout: 25s, duration: 10s, size: 64KiB, peers: [victim]}
  lat: {type: send_lat, interval: ${LAT_INTERVAL}s, timeout: 8s, iterations: 50, peers: [steady]}
EOF
  local baseline
  baseline=$(rdma_res) || lab_fail "rdma resource show failed"
  lab_log "RDMA resources before the daemon: $baseline"
  lab_barrier up 180
  start_daemon "$cfg"
  wait_success bw victim 0 120 || lab_fail "bw -> victim never succeeded: $(failures bw victim)"
  wait_success lat steady 0 60 || lab_fail "lat -> steady never succeeded: $(failures lat steady)"
  lab_log "healthy: bw -> victim $(val 'rxe_probe_bandwidth_bytes_per_second{module="bw",peer="victim"}') B/s," \
    "lat -> steady median $(val 'rxe_probe_latency_median_seconds{module="lat",peer="steady"}') s"
  [[ -z $(failures bw victim)$(failures lat steady) ]] || lab_fail "failures while healthy: $(failures bw victim) $(failures lat steady)"

  # (c) Restart the responder on vm2, right after a bandwidth probe finished.
  base=$(val 'rxe_probes_total{module="bw",peer="victim"}')
  wait_success bw victim "$base" 60 || lab_fail "no further bw probe succeeded"
  lab_signal stop-steady
  lab_wait_signal steady-stopped 60
  local f=""
  for _ in $(seq 1 $((LAT_INTERVAL * 4))); do
    sleep 0.5
    scrape && f=$(failures lat steady)
    [[ -n $f ]] && break
  done
  [[ $f == *connect_refused=* ]] || lab_fail "lat -> stopped responder: want a connect_refused failure, got '$f'"
  lab_log "(c) probes of the stopped responder fail: $f"
  lab_signal start-steady
  lab_wait_signal steady-up 90
  t0=$(ms)
  base=$(val 'rxe_probes_total{module="lat",peer="steady"}')
  wait_success lat steady "$base" $((LAT_INTERVAL * 4)) || lab_fail "lat -> steady did not recover within $((LAT_INTERVAL * 4)) s"
  t1=$(ms)
  lab_log "(c) RECOVERY: first successful probe $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100)) s after the responder listened again (limit 2 x ${LAT_INTERVAL} s)"
  ((t1 - t0 <= 2 * LAT_INTERVAL * 1000)) || lab_fail "recovery took $((t1 - t0)) ms > 2 intervals"

  # (b) Kill vm1 while the bandwidth probe to it moves data.
  scrape
  local bw_base bw_fail_before during=""
  bw_base=$(val 'rxe_probes_total{module="bw",peer="victim"}')
  bw_fail_before=$(failures bw victim)
  # Mid-probe: vm0 has the probe's control connection to vm1 open (only the bw module
  # probes vm1) and rxe0 is sending (bw and lat never run together on one device), the
  # probe holds RDMA resources above the baseline, and vm1's responder reports the session
  # active. A scrape of vm1 takes long in the lab, so a background loop keeps the latest
  # "TIME_MS ACTIVE_SESSIONS" of vm1 in a file.
  local victim_file=$LAB_OUT/victim_active.txt poller
  (while :; do
    a=$(curl -sf --max-time 10 http://10.77.0.11:19791/metrics | awk '$1 == "rxe_responder_active_sessions" {print $2}')
    echo "$(ms) ${a:-?}" >>"$victim_file"
    sleep 0.2
  done) &
  poller=$!
  local end=$((SECONDS + 120)) seen=0 sent0 sent1 active="" t_conn=0 t_sample
  while ((SECONDS < end)); do
    sleep 0.1
    if [[ -z $(ss -Htn state established dst 10.77.0.11 dport = :19792) ]]; then
      t_conn=0
      continue
    fi
    ((t_conn)) || t_conn=$(ms)
    sent0=$(lab_hw_counter sent_pkts)
    sleep 0.3
    sent1=$(lab_hw_counter sent_pkts)
    during=$(rdma_res)
    read -r t_sample active < <(tail -n 1 "$victim_file")
    # The vm1 sample must have been taken during this probe's connection.
    if ((sent1 - sent0 >= 20 && t_sample >= t_conn)) && [[ $during != "$baseline" && $active == [1-9]* ]]; then
      seen=1
      break
    fi
  done
  kill "$poller" 2>/dev/null || true
  wait "$poller" 2>/dev/null || true
  ((seen)) || lab_fail "never saw the bandwidth probe to vm1 moving data"
  local t_kill
  t_kill=$(ms)
  lab_kill_vm 1 || lab_fail "could not kill vm1"
  lab_log "(b) killed vm1 mid-probe ($((t_kill - t_conn)) ms after the control connection opened; vm1 active sessions $active, sampled $((t_kill - t_sample)) ms before; vm0 rxe0 sent $((sent1 - sent0)) packets in 0.3 s); vm0 RDMA resources during the probe: $during"
  end=$((SECONDS + 60))
  until scrape && (($(val 'rxe_probes_total{module="bw",peer="victim"}') > bw_base)); do
    ((SECONDS < end)) || lab_fail "the bandwidth probe to the killed vm1 did not end within 60 s"
    sleep 0.2
  done
  local t_fail f_after detail
  t_fail=$(ms)
  f_after=$(failures bw victim)
  [[ $(val 'rxe_probe_success{module="bw",peer="victim"}') == 0 ]] || lab_fail "the probe to the killed vm1 succeeded"
  [[ $f_after != "$bw_fail_before" ]] || lab_fail "no failure counted for the killed peer"
  detail=$(curl -sf --max-time 20 http://127.0.0.1:19791/debug/probes |
    jq -c '.pairs[] | select(.module == "bw" and .peer == "victim") | .results[0].failure')
  lab_log "(b) FAILURE $(((t_fail - t_kill) / 1000)).$(((t_fail - t_kill) % 1000 / 100)) s after the kill: counters $f_after; last result $detail"
  [[ $f_after =~ (timeout|wc_error)= ]] || lab_fail "want a timeout or wc_error failure for a peer killed mid-transfer, got $f_after"
  kill -0 "$DAEMON" || lab_fail "the daemon died"
  curl -sf --max-time 10 http://127.0.0.1:19791/-/healthy >/dev/null || lab_fail "the daemon is not healthy"

  # Still probing the other peer, successfully.
  base=$(val 'rxe_probes_total{module="lat",peer="steady"}')
  wait_success lat steady "$base" $((LAT_INTERVAL * 4)) || lab_fail "lat -> steady stopped succeeding after the kill"
  lab_log "(b) lat -> steady still succeeds after the kill (probes_total $(val 'rxe_probes_total{module="lat",peer="steady"}'))"

  # Resources back to the baseline (between two probes: poll, probes keep running).
  local now_res="" now_metric="" t_res
  end=$((SECONDS + 60))
  while ((SECONDS < end)); do
    now_res=$(rdma_res)
    if [[ $now_res == "$baseline" ]] && scrape; then
      now_metric=$(metric_res)
      [[ $now_metric == "$baseline" ]] && break
    fi
    sleep 0.2
  done
  t_res=$(ms)
  lab_log "(b) RESOURCES baseline: $baseline; during the probe: $during; after: rdma $now_res, exporter $now_metric ($(((t_res - t_fail) / 1000)) s after the failure)"
  [[ $now_res == "$baseline" && $now_metric == "$baseline" ]] ||
    lab_fail "RDMA resources did not return to the baseline: $now_res / exporter $now_metric, want $baseline; $(rdma resource show qp 2>&1 | head -n 5)"
  kill -0 "$DAEMON" || lab_fail "the daemon died"
  lab_log "failures: bw->victim $(failures bw victim); lat->steady $(failures lat steady)"
  lab_signal all-done
  stop_daemon
  lab_log PASS
}

[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER"
if ((LAB_INDEX == 0)); then prober_vm; else responder_vm; fi
