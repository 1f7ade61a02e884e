#!/usr/bin/env bash
# /metrics under load (issue 14 item 6), one VM, loopback only, bounded: the daemon with 8 rxe
# devices and 300 probe pairs (4 modules x 75 peer names, all this host over rxe0) serves
# CLIENTS concurrent /metrics clients for LOAD_S seconds while SLOW slowloris connections
# trickle to /metrics and SLOW to the probe control port. Compares the probes completed in a
# window of the same length without load. Not a ctest case; run it by hand:
#   tests/lab/lab.sh --vms 1 --smp 2 --timeout 900 --out /tmp/load -- tests/lab/bench/metrics_load.sh
# Prints the numbers; fails only if the daemon dies or no probe completes under load.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
LOAD=$LAB_BUILD/tests/metrics_load_bench
CLIENTS=${CLIENTS:-100}
LOAD_S=${LOAD_S:-30}
SLOW=${SLOW:-20}
DEVICES=8
PEERS=75
[[ -x $LOAD ]] || lab_fail "$LOAD is not built (cmake --build build --target metrics_load_bench)"

scrape() { curl -sSf --max-time 60 http://127.0.0.1:19791/metrics; }
HZ=$(getconf CLK_TCK)
# probes_done: probe sessions the responder accepted (the prober is this daemon). Retried: under
# the load a scrape may get 503 from --web.max-requests.
probes_done() {
  local i text
  for ((i = 0; i < 60; i++)); do
    if text=$(curl -sf --max-time 60 http://127.0.0.1:19791/metrics); then
      awk '/^rxe_responder_sessions_total/ {s += $2} END {printf "%d\n", s}' <<<"$text"
      return 0
    fi
    sleep 0.5
  done
  lab_fail "no /metrics answer in 60 tries"
}

# Seven more rxe devices, each on its own veth with a RoCE v2 GID (counters and port series;
# the probes run over rxe0).
for ((i = 1; i < DEVICES; i++)); do
  ip link add "lv$i" type veth peer name "lp$i"
  ip addr add "10.78.$i.1/24" dev "lv$i"
  ip link set "lp$i" up
  ip link set "lv$i" up
  rdma link add "rxe$i" type rxe netdev "lv$i"
done
[[ $(rdma link show | grep -c '^link rxe') == "$DEVICES" ]] || lab_fail "not $DEVICES rxe devices: $(rdma link show)"

CFG=$LAB_OUT/load.yml
{
  echo 'devices: {include: "rxe.*"}'
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"], max_sessions: 8}'
  echo 'prober: {max_concurrent: 2, max_bandwidth_per_device: 1, history_per_pair: 5}'
  echo 'peers:'
  for ((i = 0; i < PEERS; i++)); do printf '  - {name: self%02d, address: %s, labels: {rack: r%d}}\n' "$i" "$LAB_IP" $((i % 5)); done
  cat <<'EOF'
modules:
  wb: {type: write_bw, interval: 60s, timeout: 2s, size: 4KiB, duration: 100ms}
  sb: {type: send_bw, interval: 60s, timeout: 2s, size: 4KiB, duration: 100ms}
  wl: {type: write_lat, interval: 60s, timeout: 2s, iterations: 20}
  sl: {type: send_lat, interval: 60s, timeout: 2s, iterations: 20}
EOF
} >"$CFG"
"$BIN" --config.file "$CFG" --web.listen-address=127.0.0.1:19791 >"$LAB_OUT/daemon.log" 2>&1 &
DAEMON=$!
lab_wait_listen 19791 60 || lab_fail "daemon did not listen: $(tail -n 5 "$LAB_OUT/daemon.log")"
lab_wait_listen 19792 60 || lab_fail "responder did not listen"
sleep 20  # warm-up: the scheduler spreads the first runs, buffers are made
scrape >"$LAB_OUT/before.prom" || lab_fail "scrape failed"
SERIES=$(grep -vc '^#' "$LAB_OUT/before.prom")
BYTES=$(wc -c <"$LAB_OUT/before.prom")
PAIRS=$(grep -c '^rxe_probes_total{' "$LAB_OUT/before.prom" || true)
NDEV=$(grep -c '^rxe_device_info{' "$LAB_OUT/before.prom" || true)

# The same window without load, for comparison.
p0=$(probes_done) c0=$(lab_proc_ticks "$DAEMON")
sleep "$LOAD_S"
p1=$(probes_done) c1=$(lab_proc_ticks "$DAEMON")
t0=$(date +%s%N)
scrape >/dev/null
idle_scrape_ms=$((($(date +%s%N) - t0) / 1000000))

fds0=$(lab_fd_count "$DAEMON") thr0=$(lab_status_kb "$DAEMON" Threads)
p2=$(probes_done) c2=$(lab_proc_ticks "$DAEMON") w2=$(date +%s%N)
"$LOAD" 127.0.0.1 19791 19792 "$CLIENTS" "$LOAD_S" "$SLOW" "$SLOW" >"$LAB_OUT/load.txt" 2>&1 &
LOADER=$!
# Health while loaded: /-/healthy every 2 s.
healthy_ok=0 healthy_bad=0 health_max_ms=0
while kill -0 "$LOADER" 2>/dev/null; do
  t0=$(date +%s%N)
  if curl -sf --max-time 10 -o /dev/null http://127.0.0.1:19791/-/healthy; then
    healthy_ok=$((healthy_ok + 1))
  else
    healthy_bad=$((healthy_bad + 1))
  fi
  ms=$((($(date +%s%N) - t0) / 1000000))
  ((ms > health_max_ms)) && health_max_ms=$ms
  sleep 2
done
wait "$LOADER" || lab_fail "the load tool failed: $(cat "$LAB_OUT/load.txt")"
c3=$(lab_proc_ticks "$DAEMON") w3=$(date +%s%N)
p3=$(probes_done)  # may retry a few 503s: counts probes that ran until the load ended
kill -0 "$DAEMON" 2>/dev/null || lab_fail "the daemon died: $(tail -n 20 "$LAB_OUT/daemon.log")"
sleep 10  # slow connections closed, workers done
fds1=$(lab_fd_count "$DAEMON") thr1=$(lab_status_kb "$DAEMON" Threads)
scrape >"$LAB_OUT/after.prom" || lab_fail "scrape after the load failed"

echo
echo "daemon: $NDEV devices, $PAIRS probe pairs, /metrics $SERIES series, $BYTES bytes, one scrape alone ${idle_scrape_ms} ms"
echo "load: $CLIENTS clients x $LOAD_S s, $SLOW slowloris on /metrics, $SLOW on the control port"
cat "$LAB_OUT/load.txt"
echo "/-/healthy during the load: $healthy_ok ok, $healthy_bad failed, slowest ${health_max_ms} ms"
echo "probes completed: $((p1 - p0)) in $LOAD_S s without load, $((p3 - p2)) in $(((w3 - w2) / 1000000000)) s under load"
echo "daemon CPU (% of one CPU): $(awk -v t=$((c1 - c0)) -v hz="$HZ" -v s="$LOAD_S" 'BEGIN {printf "%.0f", t / hz / s * 100}') without load, $(awk -v t=$((c3 - c2)) -v hz="$HZ" -v ns=$((w3 - w2)) 'BEGIN {printf "%.0f", t / hz / (ns / 1e9) * 100}') under load"
echo "fds $fds0 -> $fds1, threads $thr0 -> $thr1, VmHWM $(lab_status_kb "$DAEMON" VmHWM) kB"
grep -E '^rxe_exporter_http_(connections_total|headers_too_large_total)|^rxe_responder_rejections_total' "$LAB_OUT/after.prom" || true
kill -TERM "$DAEMON"
lab_bg_wait "$DAEMON" 30 || lab_fail "daemon did not stop"
# /-/healthy may be refused while every one of the --web.max-connections is busy: reported, not judged.
((p3 > p2)) || lab_fail "no probe completed under load"
lab_log "metrics load done"
