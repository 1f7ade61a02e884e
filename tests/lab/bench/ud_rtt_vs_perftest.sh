#!/usr/bin/env bash
# ud_ping's RTT next to perftest's and our send_lat's on the same pair (issue 15: "RTT agrees
# with send_lat within +-20 % (median)"). Not a ctest case (its numbers are reported, not
# judged); run it by hand:
#   tests/lab/lab.sh --vms 2 --smp 2 --timeout 900 --out /tmp/rtt -- \
#     tests/lab/bench/ud_rtt_vs_perftest.sh [ROUNDS=2] [DELAY_MS=0]
# DELAY_MS > 0 adds a netem egress delay on both VMs (RTT + 2 x DELAY_MS), so a network term
# can dominate the hosts' wake-ups.
# Both VMs run the daemon (debug log) with one ud_ping module to each other. Each round, for
# vm0 -> vm1, RTT medians: ud_ping network and total over its last 64 pings (/debug/ud_mesh,
# idle), real ib_send_lat (2 x t_typical) busy-polling (perftest's default) and with -e
# (completion events, as ud_ping waits), then our send_lat (2 x median) from daemon modules,
# busy-polling and with use_event: true (a second daemon on vm0 that only runs those two probes
# against vm1's responder, one at a time). While any RTT is measured both VMs stay quiet: no
# curl/jq or lib.sh wait loop (those fork ~20 processes a second, a real load on a TCG vCPU)
# runs during a measurement, only bash builtins and one `sleep 1` a second.
# Checks (exit 1 at the end if not met): every use_event probe succeeded, reported use_event
# in /debug/probes, and both its client and vm1's responder slept on completion events (their
# "probe completion events" debug lines).
# The last line is the median over the rounds with the ratios ud_ping / send_lat.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXP=$LAB_BUILD/exporter/rxe_exporter
ROUNDS=${1:-2}
DELAY_MS=${2:-0}
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $DELAY_MS =~ ^[0-9]+$ ]] ||
  lab_fail "usage: ud_rtt_vs_perftest.sh [ROUNDS >= 1] [DELAY_MS >= 0]"
PEER_IP=10.77.0.$((10 + 1 - LAB_INDEX))
GID=$(lab_gid_index) || lab_fail "no RoCE v2 GID"
command -v ib_send_lat >/dev/null || lab_fail "no ib_send_lat (perftest)"

# ud_ping: 100 ms interval unless the delay needs a longer timeout; 70 intervals idle per round.
UD_INTERVAL_MS=$((DELAY_MS * 5 > 100 ? DELAY_MS * 5 : 100))
UD_IDLE_S=$(((UD_INTERVAL_MS * 70 + 999) / 1000))
if ((DELAY_MS > 0)); then
  tc qdisc add dev "$LAB_NETDEV" root netem delay "${DELAY_MS}ms" || lab_fail "netem delay failed"
  lab_log "netem: ${DELAY_MS} ms egress delay on $LAB_NETDEV"
fi

cfg=$LAB_OUT/ud.vm$LAB_INDEX.yml
{
  echo 'responder: {enabled: true, listen_addresses: [":19792"]}'
  echo 'peers:'
  echo "  - {name: peer, address: $PEER_IP}"
  echo 'modules:'
  echo "  mesh: {type: ud_ping, interval: ${UD_INTERVAL_MS}ms, timeout: $((UD_INTERVAL_MS - 5))ms}"
} >"$cfg"
"$EXP" --config.file "$cfg" --web.listen-address=127.0.0.1:19791 --log.level=debug \
  >"$LAB_OUT/daemon.vm$LAB_INDEX.log" 2>&1 &
DAEMON=$!
lab_wait_listen 19791 60 || lab_fail "daemon did not listen"
lab_barrier up 120

# send_lat modules for the second daemon on vm0 (no responder, no ud_ping, one probe at a time).
LAT_CFG=$LAB_OUT/sendlat.yml
LAT_PORT=19795
LAT_MODULE='type: send_lat, interval: 30s, timeout: 25s, iterations: 100, size: 64, qp_timeout: 18'
if ((LAB_INDEX == 0)); then
  {
    echo 'responder: {enabled: false}'
    echo 'prober: {max_concurrent: 1}'
    echo 'peers:'
    echo "  - {name: peer, address: $PEER_IP}"
    echo 'modules:'
    echo "  lat_busy: {$LAT_MODULE}"
    echo "  lat_events: {$LAT_MODULE, use_event: true}"
  } >"$LAT_CFG"
fi

ud_medians() { # -> "NETWORK_US TOTAL_US SAMPLES"
  curl -sf http://127.0.0.1:19791/debug/ud_mesh | jq -r '.pairs[0].rtt_recent |
    "\(.network_median_seconds * 1e6 | floor) \(.total_median_seconds * 1e6 | floor) \(.samples)"'
}
# sendlat_result MODULE: "RTT_US USE_EVENT" of its newest result, "failed ..." or nothing yet.
sendlat_result() {
  curl -sf "http://127.0.0.1:$LAT_PORT/debug/probes" | jq -r --arg m "$1" '.pairs[] |
    select(.module == $m) | .results[0] | select(. != null) |
    if .success then "\(.latency.median_seconds * 2e6 | floor) \(.params.use_event)"
    else "failed \(.failure.reason): \(.failure.detail)" end'
}
# events_lines LOG ROLE: the "probe completion events" debug lines of ROLE with cq_events > 0.
events_lines() {
  grep 'msg="probe completion events"' "$1" | grep "role=$2" | grep -v 'cq_events=0$' || true
}
# quiet_wait_signal NAME TIMEOUT: lab_wait_signal with bash builtins and `sleep 1` (no load).
quiet_wait_signal() {
  local end=$((SECONDS + $2))
  until [[ -e $LAB_SYNC/$1 ]]; do
    [[ ! -e $LAB_SYNC/abort ]] || lab_fail "aborted while waiting for $1"
    ((SECONDS < end)) || lab_fail "$1 not signalled within $2 s"
    sleep 1
  done
}
# probes_finished LOG: whether LOG has a "probe done" or "probe failed" line for both send_lat
# modules (read with builtins only).
probes_finished() {
  local line busy=0 events=0
  local -a lines
  mapfile -t lines <"$1"
  for line in "${lines[@]}"; do
    [[ $line == *'msg="probe done"'* || $line == *'msg="probe failed"'* ]] || continue
    [[ $line == *' module=lat_busy '* ]] && busy=1
    [[ $line == *' module=lat_events '* ]] && events=1
  done
  ((busy && events))
}
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{v[NR] = $1} END {
  if (NR == 0) {print "nan"; exit}
  print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ms() { awk -v u="$1" 'BEGIN {if (u == "nan" || u == "") print "-"; else printf "%.2f", u / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "-"; else printf "%.2f", a / b}'; }

UD_NET=() UD_TOT=() PT_BUSY=() PT_EV=() SL_BUSY=() SL_EV=() PROBLEMS=()
for ((round = 1; round <= ROUNDS; round++)); do
  sleep "$UD_IDLE_S" # fresh pings, all of them idle (no perftest or probe running)
  if ((LAB_INDEX == 0)); then
    read -r net tot n < <(ud_medians) || lab_fail "no ud_ping medians"
    UD_NET+=("$net") UD_TOT+=("$tot")
  fi
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
      out=$LAB_OUT/client.$round.$mode.txt
      timeout 100 ib_send_lat -d "$LAB_RDMA_DEV" -x "$GID" -p 18515 -F -n 300 -s 64 "${ev[@]}" "$PEER_IP" \
        >"$out" 2>&1 || lab_log "ib_send_lat $mode failed (rc $?): $(tail -n 3 "$out")"
      rtt=$(awk '$1 == 64 {printf "%.0f", 2 * $5}' "$out")
      if [[ $mode == busy ]]; then PT_BUSY+=("${rtt:-nan}"); else PT_EV+=("${rtt:-nan}"); fi
    fi
    lab_barrier "perftest.$round.$mode" 150
  done

  if ((LAB_INDEX == 0)); then
    log=$LAB_OUT/sendlat.$round.log
    "$EXP" --config.file "$LAT_CFG" --web.listen-address=127.0.0.1:$LAT_PORT --log.level=debug >"$log" 2>&1 &
    LAT_DAEMON=$!
    lab_wait_listen "$LAT_PORT" 60 || lab_fail "send_lat daemon did not listen"
    end=$((SECONDS + 120))
    until probes_finished "$log"; do
      kill -0 "$LAT_DAEMON" 2>/dev/null || lab_fail "send_lat daemon died: $(tail -n 3 "$log")"
      ((SECONDS < end)) || lab_fail "no send_lat results within 120 s"
      sleep 1
    done
    until [[ -n $(sendlat_result lat_busy) && -n $(sendlat_result lat_events) ]]; do
      ((SECONDS < end)) || lab_fail "send_lat results not in /debug/probes within 120 s"
      sleep 0.2 # (the result is stored right after the log line)
    done
    busy=$(sendlat_result lat_busy) events=$(sendlat_result lat_events)
    kill "$LAT_DAEMON"
    wait "$LAT_DAEMON" || true
    read -r b_us _ <<<"$busy"
    read -r e_us e_flag <<<"$events"
    [[ $b_us =~ ^[0-9]+$ ]] || { PROBLEMS+=("round $round: send_lat busy $busy"); b_us=nan; }
    if [[ ! $e_us =~ ^[0-9]+$ ]]; then
      PROBLEMS+=("round $round: send_lat use_event $events")
      e_us=nan
    elif [[ $e_flag != true ]]; then
      PROBLEMS+=("round $round: /debug/probes params.use_event is $e_flag for lat_events")
    fi
    SL_BUSY+=("$b_us") SL_EV+=("$e_us")
    client_ev=$(events_lines "$log" client)
    [[ -n $client_ev ]] || PROBLEMS+=("round $round: the use_event client logged no completion events")
    lab_log "round $round RTT ms: ud_ping network $(ms "$net") total $(ms "$tot") ($n pings)" \
      "| ib_send_lat busy $(ms "${PT_BUSY[-1]}") -e $(ms "${PT_EV[-1]}")" \
      "| send_lat busy $(ms "$b_us") use_event $(ms "$e_us")"
    lab_log "round $round: client ${client_ev##*msg=}"
    lab_signal "sendlat.$round"
  fi
  if ((LAB_INDEX == 1)); then
    quiet_wait_signal "sendlat.$round" 180
    # This round's lines only: one per use_event session served so far.
    resp=$(events_lines "$LAB_OUT/daemon.vm1.log" responder)
    count=$(grep -c . <<<"$resp" || true)
    if ((count >= round)); then
      lab_log "round $round: responder ${resp##*msg=}"
    else
      PROBLEMS+=("round $round: vm1's responder logged $count event-mode send_lat sessions, want $round")
    fi
  fi
done

if ((LAB_INDEX == 0)); then
  net=$(median <<<"${UD_NET[*]}") tot=$(median <<<"${UD_TOT[*]}")
  pb=$(median <<<"${PT_BUSY[*]}") pe=$(median <<<"${PT_EV[*]}")
  sb=$(median <<<"${SL_BUSY[*]}") se=$(median <<<"${SL_EV[*]}")
  lab_log "summary: median of $ROUNDS rounds, netem delay ${DELAY_MS} ms each way, RTT ms:" \
    "ud_ping network $(ms "$net") total $(ms "$tot") | ib_send_lat busy $(ms "$pb") -e $(ms "$pe")" \
    "| send_lat busy $(ms "$sb") use_event $(ms "$se")" \
    "| ud_ping network / send_lat busy $(ratio "$net" "$sb"), / send_lat use_event $(ratio "$net" "$se")" \
    "| ud_ping total / send_lat busy $(ratio "$tot" "$sb"), / send_lat use_event $(ratio "$tot" "$se")"
fi
for p in "${PROBLEMS[@]}"; do lab_log "PROBLEM: $p"; done
lab_barrier finished 60
kill "$DAEMON"
((${#PROBLEMS[@]} == 0)) || lab_fail "${#PROBLEMS[@]} check(s) failed (PROBLEM lines above)"
