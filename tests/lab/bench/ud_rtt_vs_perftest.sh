#!/usr/bin/env bash
# ud_ping's RTT next to perftest's on the same pair (issue 15: "RTT agrees with send_lat within
# +-20 % (median)"). Not a ctest case (its numbers are reported, not judged); run it by hand:
#   tests/lab/lab.sh --vms 2 --smp 2 --timeout 600 --out /tmp/rtt -- tests/lab/bench/ud_rtt_vs_perftest.sh [ROUNDS=2]
# Both VMs run the daemon with one ud_ping module (100 ms interval) to each other. Each round
# prints, for vm0 -> vm1: ud_ping's network and total RTT medians over its last 64 pings
# (/debug/ud_mesh), then real ib_send_lat's t_typical x 2 with busy polling (perftest's default,
# what our send_lat does) and with -e (completion events, as ud_ping waits).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXP=$LAB_BUILD/exporter/rxe_exporter
ROUNDS=${1:-2}
PEER_IP=10.77.0.$((10 + 1 - LAB_INDEX))
GID=$(lab_gid_index) || lab_fail "no RoCE v2 GID"
command -v ib_send_lat >/dev/null || lab_fail "no ib_send_lat (perftest)"
cfg=$LAB_OUT/ud.vm$LAB_INDEX.yml
{
  echo 'responder: {enabled: true, listen_addresses: [":19792"]}'
  echo 'peers:'
  echo "  - {name: peer, address: $PEER_IP}"
  echo 'modules:'
  echo '  mesh: {type: ud_ping, interval: 100ms, timeout: 95ms}'
} >"$cfg"
"$EXP" --config.file "$cfg" --web.listen-address=127.0.0.1:19791 >"$LAB_OUT/daemon.vm$LAB_INDEX.log" 2>&1 &
DAEMON=$!
lab_wait_listen 19791 60 || lab_fail "daemon did not listen"
lab_barrier up 120

ud_medians() {
  curl -sf http://127.0.0.1:19791/debug/ud_mesh | jq -r '.pairs[0].rtt_recent |
    "network \(.network_median_seconds * 1e6 | floor) us, total \(.total_median_seconds * 1e6 | floor) us (\(.samples) pings)"'
}
for ((round = 1; round <= ROUNDS; round++)); do
  sleep 10 # 100 fresh pings, all of them idle (no perftest running)
  ((LAB_INDEX == 0)) && lab_log "round $round: ud_ping RTT median $(ud_medians)"
  lab_barrier "ud.$round" 60
  for mode in busy events; do
    ev=()
    [[ $mode == events ]] && ev=(-e)
    if ((LAB_INDEX == 1)); then
      timeout 100 ib_send_lat -d "$LAB_RDMA_DEV" -x "$GID" -p 18515 -F -n 300 -s 64 "${ev[@]}" \
        >"$LAB_OUT/server.$round.$mode.txt" 2>&1 &
      sleep 2 # (a connect probe would use up the server's one connection)
      lab_signal "server.$round.$mode"
      wait $! || true
    else
      lab_wait_signal "server.$round.$mode" 60
      timeout 100 ib_send_lat -d "$LAB_RDMA_DEV" -x "$GID" -p 18515 -F -n 300 -s 64 "${ev[@]}" "$PEER_IP" \
        >"$LAB_OUT/client.$round.$mode.txt" 2>&1 || lab_log "ib_send_lat $mode failed (rc $?): $(tail -n 3 "$LAB_OUT/client.$round.$mode.txt")"
      lab_log "round $round: ib_send_lat $mode $(awk '$1 == 64 {printf "t_typical %s us one-way = RTT %.0f us", $5, 2 * $5}' \
        "$LAB_OUT/client.$round.$mode.txt")"
    fi
    lab_barrier "perftest.$round.$mode" 150
  done
done
lab_barrier finished 60
kill "$DAEMON"
