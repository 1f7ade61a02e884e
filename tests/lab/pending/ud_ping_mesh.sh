#!/usr/bin/env bash
# lab: vms=3 timeout=900
# ud_ping mesh run by the DAEMON (rxe_exporter, module type ud_ping, interval 100 ms, timeout
# 95 ms), 3 VMs, full mesh; every number comes from /metrics deltas between two scrapes:
#  Loss = lost - late: a ping counted lost at its timeout whose pong came later (rxe_ud_ping_
#  late_total) is a TCG-starved VM, not a dropped packet (the first run, judging lost alone,
#  saw 1-3 % "loss" on a healthy mesh: RTT tail up to 0.5 s, 17 skipped rounds).
#  1. healthy, 30 s: loss 0 on every pair; RDMA resources (rdma resource show) constant during
#     the run and exactly one PD/CQ/QP/MR above the idle baseline (one UD QP per device);
#  2. netem loss 5 % on vm2's eth0 egress, 120 s (~1200 pings per pair): loss 3-7 % on the
#     pairs with vm2, 0 on vm0<->vm1 (every round trip crosses vm2's egress exactly once);
#  3. netem delay 40 ms on vm2, 20 s: >= 90 % of the RTT samples of the pairs with vm2 above
#     20 ms (histogram bucket le=0.02), >= 90 % of vm0<->vm1's at or below it;
#  4. a live reload adds a send_lat module: the UD QP keeps its QPN (no new endpoint); after
#     30 s the ud_ping network RTT (mean, and median interpolated from the histogram) is
#     printed next to send_lat's RTT (2 x its one-way median) for the same pair (reported,
#     not judged: TCG wake-up latency, see tests/lab/README.md);
#  5. vm2's daemon is killed (SIGKILL): vm0 and vm1 see its pings lost (time from the last
#     pong counted to the first loss counted, polled every 100 ms, must be < 2 s), then 100 %
#     loss to vm2 over 3 s while the vm0<->vm1 pair stays at 0 loss.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXP=$LAB_BUILD/exporter/rxe_exporter
PORT=19791

rdma_res() { # "pd=N cq=N qp=N mr=N" for rxe0
  rdma resource show "$LAB_RDMA_DEV" |
    awk '{for (i = 1; i < NF; i++) if ($i ~ /^(pd|cq|qp|mr)$/) printf "%s=%s ", $i, $(i + 1)}'
}
ud_qpns() { rdma resource show qp link "$LAB_RDMA_DEV/1" | awk '/type UD/ {print $4}' | sort | tr '\n' ' '; }

peer_names() { local i; for ((i = 0; i < LAB_NVMS; i++)); do ((i == LAB_INDEX)) || echo "vm$i"; done; }

write_config() { # FILE WITH_SEND_LAT(0|1)
  local i
  {
    echo "responder: {enabled: true, listen_addresses: [\":19792\"]}"
    echo "prober: {max_concurrent: 1}"
    echo "peers:"
    for ((i = 0; i < LAB_NVMS; i++)); do
      ((i == LAB_INDEX)) || echo "  - {name: vm$i, address: 10.77.0.$((10 + i)), labels: {rack: r$i}}"
    done
    echo "modules:"
    echo "  mesh: {type: ud_ping, interval: 100ms, timeout: 95ms}"
    (($2)) && echo "  lat: {type: send_lat, interval: 6s, timeout: 5s, iterations: 500}"
    true
  } >"$1"
}

scrape() { # FILE
  curl -sf --max-time 20 "http://127.0.0.1:$PORT/metrics" >"$1.tmp" && mv "$1.tmp" "$1"
}
val() { # FILE SERIES (exact name{labels}) -> value or ""
  awk -v s="$2" '$1 == s {print $2; exit}' "$1"
}
L() { echo "module=\"mesh\",peer=\"$1\",rack=\"r${1#vm}\""; }
delta() { # A B SERIES
  awk -v a="$(val "$1" "$3")" -v b="$(val "$2" "$3")" 'BEGIN {printf "%d", b - a}'
}

main() {
  [[ -x $EXP ]] || lab_fail "no $EXP"
  local cfg=$LAB_OUT/cfg.vm$LAB_INDEX.yml cfg2=$LAB_OUT/cfg2.vm$LAB_INDEX.yml base pid
  local log=$LAB_OUT/exporter.vm$LAB_INDEX.log m=$LAB_OUT/m.vm$LAB_INDEX peer bad=0
  write_config "$cfg" 0
  write_config "$cfg2" 1
  base=$(rdma_res)
  lab_log "idle RDMA resources: $base"
  lab_barrier up 180
  "$EXP" --config.file "$cfg" --web.listen-address=127.0.0.1:$PORT --log.level=info >"$log" 2>&1 &
  pid=$!
  lab_wait_listen $PORT 60 || lab_fail "daemon did not listen: $(tail -n 5 "$log")"

  # Every pair answers before the measurements start (address fetch + first pongs).
  local deadline=$((SECONDS + 120)) ok
  while :; do
    scrape "$m.start" || true
    ok=1
    for peer in $(peer_names); do
      (($(val "$m.start" "rxe_ud_ping_received_total{$(L "$peer")}" | cut -d. -f1) > 0)) 2>/dev/null || ok=0
    done
    ((ok)) && break
    ((SECONDS < deadline)) || lab_fail "pairs not answering after 120 s: $(grep '^rxe_ud_ping_\(received\|address\)' "$m.start" | tr '\n' ' ')"
    sleep 0.5
  done
  lab_barrier flowing 180

  # 1. healthy.
  local res1 res2 res3 want d_sent d_recv d_lost d_late
  scrape "$m.h0"
  res1=$(rdma_res)
  sleep 15
  res2=$(rdma_res)
  sleep 15
  res3=$(rdma_res)
  scrape "$m.h1"
  sleep 2
  scrape "$m.h1late"  # late pongs of the window's last pings arrive after it
  lab_log "RDMA resources during the run: $res1 / $res2 / $res3; UD QPNs: $(ud_qpns)"
  [[ $res1 == "$res2" && $res2 == "$res3" ]] || { lab_log "FAIL RDMA resources changed"; bad=1; }
  want=$(awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); printf "%s=%d ", kv[1], kv[2] + 1}}' <<<"$base")
  [[ $res1 == "$want" ]] || { lab_log "FAIL want one more pd/cq/qp/mr than idle ($want), got $res1"; bad=1; }
  for peer in $(peer_names); do
    d_sent=$(delta "$m.h0" "$m.h1" "rxe_ud_ping_sent_total{$(L "$peer")}")
    d_recv=$(delta "$m.h0" "$m.h1" "rxe_ud_ping_received_total{$(L "$peer")}")
    d_lost=$(delta "$m.h0" "$m.h1" "rxe_ud_ping_lost_total{$(L "$peer")}")
    d_late=$(delta "$m.h0" "$m.h1late" "rxe_ud_ping_late_total{$(L "$peer")}")
    lab_log "healthy: $peer sent $d_sent received $d_recv lost $d_lost (late $d_late)"
    ((d_lost - d_late <= 0 && d_recv >= 200)) || { lab_log "FAIL healthy: $peer"; bad=1; }
  done
  ((bad == 0)) || lab_fail "healthy mesh"
  lab_barrier healthy-done 120

  # 2. netem loss 5 % on vm2's egress.
  ((LAB_INDEX == 2)) && tc qdisc add dev "$LAB_NETDEV" root netem loss 5%
  lab_barrier loss-on 60
  scrape "$m.l0"
  sleep 120
  scrape "$m.l1"
  sleep 2
  scrape "$m.l1late"
  lab_barrier loss-measured 60
  ((LAB_INDEX == 2)) && tc qdisc del dev "$LAB_NETDEV" root
  local pct
  for peer in $(peer_names); do
    d_sent=$(delta "$m.l0" "$m.l1" "rxe_ud_ping_sent_total{$(L "$peer")}")
    d_lost=$(delta "$m.l0" "$m.l1" "rxe_ud_ping_lost_total{$(L "$peer")}")
    d_late=$(delta "$m.l0" "$m.l1late" "rxe_ud_ping_late_total{$(L "$peer")}")
    d_lost=$((d_lost - d_late))
    pct=$(awk -v l="$d_lost" -v s="$d_sent" 'BEGIN {printf "%.2f", s ? 100 * l / s : -1}')
    lab_log "loss: $peer never answered $d_lost of $d_sent = $pct % (late $d_late)"
    if ((LAB_INDEX == 2)) || [[ $peer == vm2 ]]; then
      awk -v p="$pct" 'BEGIN {exit !(p >= 3 && p <= 7)}' || { lab_log "FAIL loss: $peer $pct % not in 3-7"; bad=1; }
    else
      ((d_lost <= 0 && d_sent >= 1000)) || { lab_log "FAIL loss: $peer (not through vm2) lost $d_lost of $d_sent"; bad=1; }
    fi
  done
  ((bad == 0)) || lab_fail "netem loss"
  lab_barrier loss-done 120

  # 3. netem delay 40 ms on vm2's egress.
  ((LAB_INDEX == 2)) && tc qdisc add dev "$LAB_NETDEV" root netem delay 40ms
  lab_barrier delay-on 60
  scrape "$m.d0"
  sleep 20
  scrape "$m.d1"
  lab_barrier delay-measured 60
  ((LAB_INDEX == 2)) && tc qdisc del dev "$LAB_NETDEV" root
  local n le frac mean
  for peer in $(peer_names); do
    n=$(delta "$m.d0" "$m.d1" "rxe_probe_latency_seconds_count{$(L "$peer")}")
    le=$(delta "$m.d0" "$m.d1" "rxe_probe_latency_seconds_bucket{$(L "$peer"),le=\"0.02\"}")
    mean=$(awk -v a="$(val "$m.d0" "rxe_ud_ping_seconds_total{$(L "$peer"),component=\"network\"}")" \
      -v b="$(val "$m.d1" "rxe_ud_ping_seconds_total{$(L "$peer"),component=\"network\"}")" -v n="$n" \
      'BEGIN {printf "%.0f", n ? (b - a) / n * 1e6 : -1}')
    frac=$(awk -v a="$le" -v n="$n" 'BEGIN {printf "%.3f", n ? a / n : -1}')
    lab_log "delay: $peer $n samples, mean network RTT $mean us, fraction <= 20 ms $frac"
    ((n >= 100)) || { lab_log "FAIL delay: $peer only $n samples"; bad=1; }
    if ((LAB_INDEX == 2)) || [[ $peer == vm2 ]]; then
      awk -v f="$frac" 'BEGIN {exit !(f <= 0.10)}' || { lab_log "FAIL delay: $peer not delayed"; bad=1; }
    else
      awk -v f="$frac" 'BEGIN {exit !(f >= 0.90)}' || { lab_log "FAIL delay: $peer (not through vm2) delayed"; bad=1; }
    fi
  done
  ((bad == 0)) || lab_fail "netem delay"
  lab_barrier delay-done 120

  # 4. live reload adding send_lat; the UD endpoint stays.
  local qpn_before qpn_after
  qpn_before=$(ud_qpns)
  cp "$cfg2" "$cfg"
  curl -sf -X POST "http://127.0.0.1:$PORT/-/reload" >/dev/null || lab_fail "reload failed: $(tail -n 5 "$log")"
  scrape "$m.c0"
  deadline=$((SECONDS + 120))
  while :; do # two send_lat probes to each peer
    sleep 1
    scrape "$m.c1"
    ok=1
    for peer in $(peer_names); do
      (($(val "$m.c1" "rxe_probes_total{module=\"lat\",peer=\"$peer\",rack=\"r${peer#vm}\"}" | cut -d. -f1) >= 3)) 2>/dev/null || ok=0
    done
    ((ok)) && break
    ((SECONDS < deadline)) || { lab_log "send_lat probes did not run 3 times in 120 s"; break; }
  done
  qpn_after=$(ud_qpns)
  lab_log "UD QPNs before/after reload: $qpn_before / $qpn_after"
  [[ $qpn_before == "$qpn_after" ]] || { lab_log "FAIL the reload replaced the UD QP"; bad=1; }
  local lat median
  for peer in $(peer_names); do
    n=$(delta "$m.c0" "$m.c1" "rxe_probe_latency_seconds_count{$(L "$peer")}")
    mean=$(awk -v a="$(val "$m.c0" "rxe_ud_ping_seconds_total{$(L "$peer"),component=\"network\"}")" \
      -v b="$(val "$m.c1" "rxe_ud_ping_seconds_total{$(L "$peer"),component=\"network\"}")" -v n="$n" \
      'BEGIN {printf "%.1f", n ? (b - a) / n * 1e6 : -1}')
    # Median by linear interpolation inside the histogram bucket holding it (histogram_quantile).
    median=$(for f in "$m.c0" "$m.c1"; do grep "^rxe_probe_latency_seconds_bucket{$(L "$peer")," "$f"; done |
      awk -v n="$n" '{match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); v[le, FILENAME, NR] = $2;
        c[le] = (le in c) ? $2 - c[le] : $2; if (!(le in seen)) {order[++k] = le; seen[le] = 1}}
        END {prev = 0; pc = 0; for (i = 1; i <= k; i++) {le = order[i]; if (c[le] >= n / 2 && le != "+Inf") {
          printf "%.1f", (prev + (le - prev) * (n / 2 - pc) / (c[le] - pc)) * 1e6; exit}; prev = le; pc = c[le]}}')
    lat=$(val "$m.c1" "rxe_probe_latency_median_seconds{module=\"lat\",peer=\"$peer\",rack=\"r${peer#vm}\"}")
    lat=$(awk -v l="$lat" 'BEGIN {printf "%.1f", 2 * l * 1e6}')
    lab_log "rtt: $peer ud_ping network RTT mean $mean us, median ~$median us ($n samples); send_lat RTT (2 x median) $lat us; ratio median/send_lat $(awk -v a="$median" -v b="$lat" 'BEGIN {printf "%.2f", b > 0 ? a / b : -1}')"
  done
  ((bad == 0)) || lab_fail "reload"
  lab_barrier compare-done 180

  # 5. kill vm2's daemon.
  if ((LAB_INDEX == 2)); then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    lab_log "killed the daemon"
    lab_signal killed
  else
    lab_wait_signal killed 60
    local l2 r0 r1 lo0 t_recv t_lost other
    other=vm$((LAB_INDEX == 0 ? 1 : 0))
    l2=$(L vm2)
    scrape "$m.k0"
    r0=$(val "$m.k0" "rxe_ud_ping_received_total{$l2}")
    lo0=$(val "$m.k0" "rxe_ud_ping_lost_total{$l2}")
    t_recv=$(date +%s%3N)
    t_lost=
    deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
      scrape "$m.k1"
      r1=$(val "$m.k1" "rxe_ud_ping_received_total{$l2}")
      if [[ $r1 != "$r0" ]]; then
        r0=$r1
        t_recv=$(date +%s%3N)  # vm2's answer counted after the signal (was in flight)
      fi
      if [[ $(val "$m.k1" "rxe_ud_ping_lost_total{$l2}") != "$lo0" ]]; then
        t_lost=$(date +%s%3N)
        break
      fi
      sleep 0.1
    done
    [[ -n $t_lost ]] || lab_fail "kill: no loss to vm2 counted within 30 s"
    lab_log "kill: first loss to vm2 counted $((t_lost - t_recv)) ms after the last pong from it was counted (interval 100 ms, timeout 95 ms)"
    ((t_lost - t_recv < 2000)) || { lab_log "FAIL kill: loss seen only after $((t_lost - t_recv)) ms"; bad=1; }
    scrape "$m.k2"
    sleep 3
    scrape "$m.k3"
    d_sent=$(delta "$m.k2" "$m.k3" "rxe_ud_ping_sent_total{$l2}")
    d_recv=$(delta "$m.k2" "$m.k3" "rxe_ud_ping_received_total{$l2}")
    d_lost=$(delta "$m.k2" "$m.k3" "rxe_ud_ping_lost_total{$l2}")
    d_late=$(delta "$m.k2" "$m.k3" "rxe_ud_ping_late_total{$l2}")
    lab_log "kill: vm2 over 3 s: sent $d_sent received $d_recv lost $d_lost (late $d_late)"
    ((d_recv == 0 && d_late == 0 && d_lost >= 20)) || { lab_log "FAIL kill: not 100 % loss to vm2"; bad=1; }
    d_lost=$(delta "$m.k0" "$m.k3" "rxe_ud_ping_lost_total{$(L "$other")}")
    d_late=$(delta "$m.k0" "$m.k3" "rxe_ud_ping_late_total{$(L "$other")}")
    d_recv=$(delta "$m.k0" "$m.k3" "rxe_ud_ping_received_total{$(L "$other")}")
    lab_log "kill: $other (alive) received $d_recv lost $d_lost (late $d_late) meanwhile"
    ((d_lost - d_late <= 0 && d_recv >= 20)) || { lab_log "FAIL kill: $other affected"; bad=1; }
    grep '^rxe_ud_ping_\(address_fetches\|pongs_sent\|malformed\|not_allowed\|skipped\)' "$m.k3" | sed 's/^/final: /'
    ((bad == 0)) || lab_fail "peer killed"
  fi
  lab_barrier killed-checked 120
  if ((LAB_INDEX != 2)); then
    kill -TERM "$pid"
    lab_bg_wait "$pid" 30 || lab_fail "daemon did not stop: $(tail -n 5 "$log")"
    [[ $(rdma_res) == "$base" ]] || lab_fail "RDMA resources not back to idle after the daemon stopped: $(rdma_res)"
  fi
  lab_barrier finished 120
  lab_log PASS
}

main "$@"
