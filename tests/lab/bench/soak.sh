#!/usr/bin/env bash
# Soak (issue 14 item 5): the real daemon runs SOAK_PROBES probes (all four types, rxe loopback,
# short) against itself in one VM while RSS, open fds, threads and the device's RDMA resources
# are sampled. Not a ctest case (it runs ~15 min); run it by hand:
#   tests/lab/lab.sh --vms 1 --smp 2 --timeout 7200 --out /tmp/soak -- tests/lab/bench/soak.sh [PROBES]
# Prints the samples and a drift table; fails only on a crash, on no progress, or on RDMA
# resources that do not return to the idle baseline (a leak is a bug, not a number).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
SOAK_PROBES=${1:-10000}  # (lab.sh passes no environment to the VM: arguments)
WARMUP_PROBES=2000  # the 10,063-probe run's RSS was still rising until ~2,000 probes, flat after
SAMPLE_S=15
DEADLINE_S=6600
PEERS=25  # peer names (all this host): 4 modules x 25 = 100 pairs

scrape() { curl -sf --max-time 30 http://127.0.0.1:19791/metrics; }
# probes_done: probe sessions the responder accepted (the prober is this same daemon). Unlike
# rxe_probes_total it survives the reloads that remove and re-add the pairs.
probes_done() { scrape | awk '/^rxe_responder_sessions_total/ {s += $2} END {printf "%d\n", s}'; }

write_config() {  # write_config FILE WITH_MODULES(0|1)
  {
    echo 'devices: {include: "rxe.*"}'
    echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"], max_sessions: 16}'
    echo 'prober: {max_concurrent: 8, max_bandwidth_per_device: 2, history_per_pair: 5}'
    echo 'peers:'
    for ((i = 0; i < PEERS; i++)); do printf '  - {name: self%02d, address: %s}\n' "$i" "$LAB_IP"; done
    if (($2)); then
      cat <<'EOF'
modules:
  wb: {type: write_bw, interval: 2s, timeout: 1500ms, size: 4KiB, duration: 100ms}
  sb: {type: send_bw, interval: 2s, timeout: 1500ms, size: 4KiB, duration: 100ms}
  wl: {type: write_lat, interval: 2s, timeout: 1500ms, iterations: 20}
  sl: {type: send_lat, interval: 2s, timeout: 1500ms, iterations: 20}
EOF
    fi
  } >"$1"
}

# to_idle: reloads without modules and waits (60 s at most) until no probe runs any more, i.e.
# the RDMA resources, fds and threads stop changing; sets RES, FDS, THREADS.
to_idle() {
  write_config "$CFG" 0
  kill -HUP "$DAEMON"
  local prev="" now i
  for ((i = 0; i < 60; i++)); do
    sleep 1
    RES=$(lab_rdma_res) FDS=$(lab_fd_count "$DAEMON") THREADS=$(lab_status_kb "$DAEMON" Threads)
    now="$RES $FDS $THREADS"
    [[ $now == "$prev" ]] && return 0
    prev=$now
  done
}
# probe_until N: probes (all modules) until N probes completed in total; samples every SAMPLE_S.
probe_until() {
  local want=$1 rss fds thr
  write_config "$CFG" 1
  kill -HUP "$DAEMON"
  while :; do
    sleep "$SAMPLE_S"
    kill -0 "$DAEMON" 2>/dev/null || lab_fail "the daemon died: $(tail -n 20 "$LAB_OUT/daemon.log")"
    N=$(probes_done) || lab_fail "scrape failed"
    rss=$(lab_status_kb "$DAEMON" VmRSS)
    fds=$(lab_fd_count "$DAEMON")
    thr=$(lab_status_kb "$DAEMON" Threads)
    ((fds > MAX_FDS)) && MAX_FDS=$fds
    ((thr > MAX_THREADS)) && MAX_THREADS=$thr
    printf '%6d %7d %8d %5d %7d %s\n' $(($(date +%s) - T0)) "$N" "$rss" "$fds" "$thr" "$(lab_rdma_res)" >>"$SAMPLES"
    ((N >= want)) && return 0
    (($(date +%s) - T0 < DEADLINE_S)) || lab_fail "only $N of $want probes in $DEADLINE_S s"
  done
}

CFG=$LAB_OUT/soak.yml
write_config "$CFG" 0
"$BIN" --config.file "$CFG" --web.listen-address=127.0.0.1:19791 >"$LAB_OUT/daemon.log" 2>&1 &
DAEMON=$!
lab_wait_listen 19791 60 || lab_fail "daemon did not listen: $(tail -n 5 "$LAB_OUT/daemon.log")"
lab_wait_listen 19792 60 || lab_fail "responder did not listen"
T0=$(date +%s)
SAMPLES=$LAB_OUT/samples.txt
printf '%6s %7s %8s %5s %7s %s\n' t_s probes rss_kb fds threads rdma >"$SAMPLES"
MAX_FDS=0 MAX_THREADS=0 N=0
# Warm-up, then the idle baseline (threads and buffers made on first use are there by now).
probe_until "$WARMUP_PROBES"
WARM_AT=$N
to_idle
IDLE_RES=$RES IDLE_FDS=$FDS IDLE_THREADS=$THREADS WARM_RSS=$(lab_status_kb "$DAEMON" VmRSS)
lab_log "idle after $WARM_AT probes: $IDLE_RES fds=$IDLE_FDS threads=$IDLE_THREADS rss_kb=$WARM_RSS"
probe_until "$SOAK_PROBES"
n=$N
END_S=$(($(date +%s) - T0))
PROM=$LAB_OUT/end.prom
scrape >"$PROM"
HWM=$(lab_status_kb "$DAEMON" VmHWM)
to_idle
res=$RES fds=$FDS thr=$THREADS END_RSS=$(lab_status_kb "$DAEMON" VmRSS)

cat "$SAMPLES"
echo
echo "soak: $n probes in $END_S s ($(awk -v n="$n" -v s="$END_S" 'BEGIN {printf "%.1f", n / s}') probes/s)"
echo "probes by module and outcome:"
awk '/^rxe_probes_total\{/ {match($0, /module="[^"]*"/); m = substr($0, RSTART + 8, RLENGTH - 9); t[m] += $2}
     /^rxe_probe_failures_total\{/ {match($0, /reason="[^"]*"/); r = substr($0, RSTART + 8, RLENGTH - 9); f[r] += $2}
     END {for (m in t) printf "  %-4s %d\n", m, t[m]; for (r in f) printf "  failed %-16s %d\n", r, f[r]}' "$PROM"
echo "idle after the $WARM_AT warm-up probes vs idle after all $n probes:"
printf '%-22s %12s %12s %10s\n' what warm end drift
printf '%-22s %12s %12s %10s\n' "rss_kb idle" "$WARM_RSS" "$END_RSS" "$((END_RSS - WARM_RSS))"
printf '%-22s %12s %12s\n' "peak rss_kb (VmHWM)" "" "$HWM"
printf '%-22s %12s %12s %10s\n' "fds" "$IDLE_FDS" "$fds" "$((fds - IDLE_FDS))"
printf '%-22s %12s %12s %10s\n' "threads" "$IDLE_THREADS" "$thr" "$((thr - IDLE_THREADS))"
printf '%-22s %12s %12s\n' "max fds / threads" "" "$MAX_FDS / $MAX_THREADS"
echo "rdma resources: $IDLE_RES -> $res"
# The trend while probing (not two idle points that malloc's caching can move): least-squares
# slope of RSS over the probes completed, over the samples after the warm-up.
awk -v w="$WARM_AT" 'NR > 1 && $2 > w {n++; sx += $2; sy += $3; sxx += $2 * $2; sxy += $2 * $3}
  END {if (n > 2) {b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    printf "rss trend while probing (%d samples after warm-up): %.4f kB/probe = %.0f kB per 10,000 probes\n", n, b, b * 1e4}}' "$SAMPLES"

kill -TERM "$DAEMON"
lab_bg_wait "$DAEMON" 30 || lab_fail "daemon did not stop"
[[ $res == "$IDLE_RES" ]] || lab_fail "RDMA resources did not return to idle: $IDLE_RES -> $res"
[[ $fds == "$IDLE_FDS" ]] || lab_fail "fds did not return to idle: $IDLE_FDS -> $fds"
[[ $thr == "$IDLE_THREADS" ]] || lab_fail "threads did not return to idle: $IDLE_THREADS -> $thr"
lab_log "soak done"
