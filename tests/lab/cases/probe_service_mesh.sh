#!/usr/bin/env bash
# lab: vms=2 timeout=420
# ProbeService end to end on real rxe: both VMs run probe_service_once (responder +
# scheduler) with the same mesh config (peers: both VMs, i.e. one rxe loopback pair and one
# cross-VM pair; modules write_bw and send_lat). After a live reload (module "old" removed,
# module "wlat" added) the metrics must show: probes on schedule with success, bandwidth and
# latency numbers, pre-created failure reasons and attributed counters, responder sessions,
# no series of the removed module, and Stop() within ~1 s. Then vm0 alone runs loopback-only
# bandwidth probes one at a time: every probe runs alone on rxe0, so its hw counter deltas
# are attributed (counters_attributed in /debug/probes).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

T=$LAB_BUILD/tests/probe_service_once
MAX_SECONDS=240 # deadline of the mesh phase (it ends as soon as its conditions hold)
RELOAD_AFTER=20

write_config() { # write_config FILE WITH_OLD(0|1)
  local file=$1 old=$2
  {
    echo "responder: {enabled: true, listen_addresses: [\":19792\"], allowed_cidrs: [\"10.77.0.0/24\"]}"
    echo "prober: {max_concurrent: 2, max_bandwidth_per_device: 1, history_per_pair: 5}"
    echo "peers:"
    echo "  - {name: vm0, address: 10.77.0.10, labels: {rack: r0}}"
    echo "  - {name: vm1, address: 10.77.0.11, labels: {rack: r1}}"
    echo "modules:"
    echo "  bw: {type: write_bw, interval: 10s, timeout: 10s, duration: 1s, size: 64KiB}"
    echo "  lat: {type: send_lat, interval: 8s, timeout: 8s, iterations: 50}"
    if ((old)); then
      echo "  old: {type: send_bw, interval: 60s, timeout: 8s, duration: 1s}"
    else
      echo "  wlat: {type: write_lat, interval: 8s, timeout: 8s, iterations: 50}"
    fi
  } >"$file"
}

# value SERIES: the sample value of SERIES (exact name{labels}) in this VM's metrics, or "".
value() { awk -v s="$1" '$1 == s {print $2; exit}' "$METRICS"; }

# ge SERIES MIN: SERIES exists and is >= MIN (why not: in $WHY_NOT).
ge() {
  local v
  v=$(value "$1")
  [[ -n $v ]] || { WHY_NOT="missing series $1"; return 1; }
  awk -v v="$v" -v m="$2" "$LAB_AWK_NUM"' BEGIN {exit !(lab_num(v) && v + 0 >= m + 0)}' ||
    { WHY_NOT="$1 = $v, want >= $2"; return 1; }
}
expect_ge() { ge "$@" || lab_fail "$WHY_NOT"; } # expect_ge SERIES MIN

# mesh_ok: what the mesh phase needs (the runner waits for it, then asserts it on the final
# metrics): each pair ran on schedule and succeeded at least once (TCG VMs on a busy host
# are slow: some probes may time out), before and after the reload.
mesh_ok() {
  local peer rack l mod
  for peer in vm0 vm1; do
    rack=r${peer#vm}
    l="module=\"bw\",peer=\"$peer\",rack=\"$rack\""
    ge "rxe_probes_total{$l}" 3 && ge "rxe_probe_last_success_timestamp_seconds{$l}" 1 &&
      ge "rxe_probe_bandwidth_bytes_per_second{$l}" 1000000 && ge "rxe_probe_transferred_bytes_total{$l}" 1000000 &&
      ge "rxe_probe_failures_total{$l,reason=\"wc_error\"}" 0 &&
      ge "rxe_probe_attributed_hw_stat_total{$l,counter=\"duplicate_request\"}" 0 || return 1
    for mod in lat wlat; do
      l="module=\"$mod\",peer=\"$peer\",rack=\"$rack\""
      ge "rxe_probes_total{$l}" 2 && ge "rxe_probe_last_success_timestamp_seconds{$l}" 1 &&
        ge "rxe_probe_latency_seconds_count{$l}" 50 && ge "rxe_probe_latency_median_seconds{$l}" 0.000001 || return 1
    done
  done
  ge "rxe_responder_sessions_total" 4
}

# Loopback-only, one probe at a time: deltas must be attributed.
attribution() {
  local cfg=$LAB_OUT/cfg.alone.yml json=$LAB_OUT/debug.alone.json
  {
    echo "responder: {enabled: true, listen_addresses: [\"$LAB_IP:19792\"]}"
    echo "prober: {max_concurrent: 1, history_per_pair: 10}"
    echo "peers: [{name: self, address: $LAB_IP}]"
    echo "modules: {bw: {type: write_bw, interval: 4s, timeout: 4s, duration: 1s}}"
  } >"$cfg"
  timeout 60 "$T" --config "$cfg" --seconds 14 --json "$json" >"$LAB_OUT/metrics.alone.txt" \
    2>"$LAB_OUT/service.alone.log" || lab_fail "alone run failed: $(tail -n 5 "$LAB_OUT/service.alone.log")"
  local n
  n=$(grep -o '"counters_attributed":true' "$json" | wc -l)
  lab_log "attributed probes: $n; $(grep -o '"counter_deltas":{[^}]*}' "$json" | head -n 1)"
  ((n >= 1)) || lab_fail "no probe had its counter deltas attributed"
  grep -q '"counter_deltas":{"completer_retry_err":' "$json" || lab_fail "no counter deltas in debug json"
}

main() {
  [[ -x $T ]] || lab_fail "no $T (build the probe_service_once target)"
  local cfg=$LAB_OUT/cfg.vm$LAB_INDEX.yml cfg2=$LAB_OUT/cfg2.vm$LAB_INDEX.yml other
  METRICS=$LAB_OUT/metrics.vm$LAB_INDEX.txt
  write_config "$cfg" 1
  write_config "$cfg2" 0
  other=vm$((1 - LAB_INDEX))
  local log=$LAB_OUT/service.vm$LAB_INDEX.log stopfile=$LAB_OUT/stop.vm$LAB_INDEX pid
  lab_barrier start 120
  # Runs until both VMs have collected (the responders stay up for the peer meanwhile).
  timeout $((MAX_SECONDS + 120)) "$T" --config "$cfg" --seconds "$MAX_SECONDS" \
    --reload "$cfg2" --reload-after "$RELOAD_AFTER" --json "$LAB_OUT/debug.vm$LAB_INDEX.json" \
    --metrics "$METRICS" --until-file "$LAB_OUT/until.vm$LAB_INDEX" --stop-file "$stopfile" --debug \
    >"$LAB_OUT/stop.vm$LAB_INDEX.txt" 2>"$log" &
  pid=$!
  # The metrics are rewritten every 0.5 s after the reload: wait until the mesh phase has what
  # it needs (not a fixed run time), then let the tool write its final metrics and JSON.
  local end=$((SECONDS + MAX_SECONDS + 30)) t0=$SECONDS
  until [[ -e $METRICS ]] && mesh_ok; do
    kill -0 "$pid" 2>/dev/null || lab_fail "probe_service_once ended: $(tail -n 20 "$log")"
    ((SECONDS < end)) || lab_fail "the mesh phase did not get there in $MAX_SECONDS s: ${WHY_NOT:-no metrics}"
    lab_sleep 1
  done
  lab_log "mesh phase complete $((SECONDS - t0)) s after the start"
  touch "$LAB_OUT/until.vm$LAB_INDEX"
  lab_wait_file "$LAB_OUT/debug.vm$LAB_INDEX.json" 60 || lab_fail "no final metrics/json: $(tail -n 20 "$log")"
  lab_barrier collected 240
  touch "$stopfile"
  lab_bg_wait "$pid" 30 || lab_fail "probe_service_once failed: $(tail -n 20 "$log")"
  lab_log "metrics: $(grep -c '^rxe_' "$METRICS") samples"
  grep -q '^RELOAD ok=1' "$log" || lab_fail "reload did not succeed"

  # The final metrics still have all of it (counters and last-success times only grow).
  mesh_ok || lab_fail "final metrics: $WHY_NOT"
  ! grep -q 'module="old"' "$METRICS" || lab_fail "series of the removed module \"old\" remain"
  expect_ge "rxe_responder_rejections_total{reason=\"not_allowed\"}" 0
  expect_ge 'rxe_prober_deferred_total{reason="concurrency"}' 0
  lab_log "bw to $other: $(value "rxe_probe_bandwidth_bytes_per_second{module=\"bw\",peer=\"$other\",rack=\"r${other#vm}\"}") B/s;" \
    "lat median to $other: $(value "rxe_probe_latency_median_seconds{module=\"lat\",peer=\"$other\",rack=\"r${other#vm}\"}") s"
  grep -q '"pairs":\[' "$LAB_OUT/debug.vm$LAB_INDEX.json" || lab_fail "no debug json"
  lab_log "results: $(grep -o '"success":[a-z]*' "$LAB_OUT/debug.vm$LAB_INDEX.json" | sort | uniq -c | tr '\n' ' ')"

  local stop_ms
  stop_ms=$(awk '/^# STOP_MS/ {print $3}' "$LAB_OUT/stop.vm$LAB_INDEX.txt")
  lab_log "Stop() took $stop_ms ms"
  ((stop_ms < 1500)) || lab_fail "Stop() took $stop_ms ms"
  lab_barrier mesh-done 120
  ((LAB_INDEX == 0)) && attribution
  lab_barrier all-done 180
  lab_log PASS
}

main "$@"
