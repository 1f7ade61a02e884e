#!/usr/bin/env bash
# lab: vms=2 timeout=420
# Faults a long-running host meets (issue 14, item 4): 1 % packet loss on the link
# (`tc netem loss 1%` on vm0's egress) while vm0's daemon probes vm1's responder with
# write_bw (2 s) and send_lat. Probes keep completing, each within its timeout (nothing
# hangs); the loss shows in vm0's port counters (sequence-error NAKs received, completer
# retries) and in the bw probe's attributed counters (rxe_probe_attributed_hw_stat_total),
# both compared with a healthy window of the same number of bw probes just before.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lab/probe_lib.sh
. "$(dirname "$0")/../probe_lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
PROM=$LAB_OUT/metrics.vm$LAB_INDEX.prom
WINDOW=4 # bw probes per window
[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER"
DAEMON=''
trap plib_on_exit EXIT
start_daemon() {
  "$EXPORTER" --config.file "$1" >"$LAB_OUT/exporter.vm$LAB_INDEX.log" 2>&1 &
  DAEMON=$!
  lab_wait_listen 19791 60 || lab_fail "exporter did not listen: $(tail -n 5 "$LAB_OUT/exporter.vm$LAB_INDEX.log")"
}

if ((LAB_INDEX == 1)); then
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}' >"$LAB_OUT/responder.yml"
  start_daemon "$LAB_OUT/responder.yml"
  lab_wait_listen 19792 30 || lab_fail "responder did not listen"
  lab_signal responder-up
  lab_wait_signal prober-done 400
  lab_log PASS
  exit 0
fi

cat >"$LAB_OUT/prober.yml" <<EOF
responder: {enabled: false}
peers: [{name: peer, address: ${LAB_IPS##* }}]
modules:
  bw: {type: write_bw, interval: 6s, timeout: 6s, duration: 2s, size: 64KiB}
  lat: {type: send_lat, interval: 5s, timeout: 5s, iterations: 50}
EOF
scrape() { plib_scrape; }
val() { plib_val "$@"; }
failures() { plib_failures "$1" peer; } # MODULE
probes() { val "rxe_probes_total{module=\"$1\",peer=\"peer\"}"; }
ok_probes() { echo $(($(probes "$1") - $(failures "$1" | tr ' =' '\n ' | awk '{s += $2} END {print s + 0}'))); }
# loss_signals: "PORT ATTRIBUTED": vm0's seq-error NAKs + completer retries (port counters),
# and the same two attributed to the bw probes.
loss_signals() {
  local port attr
  port=$(awk '$1 ~ /^rxe_port_(sequence_error_naks_received|completer_retries)_total\{device="rxe0",port="1"\}$/ {s += $2}
    END {print s + 0}' "$PROM")
  attr=$(awk '$1 ~ /^rxe_probe_attributed_hw_stat_total\{/ && /module="bw"/ && /counter="(rcvd_seq_err|completer_retry_err)"/ {s += $2}
    END {print s + 0}' "$PROM")
  echo "$port $attr"
}
# window NAME: waits until WINDOW more bw probes ended; each must end within its timeout
# (a scrape every 0.5 s sees probes_total move at least every interval + timeout).
window() {
  local name=$1 b0 l0 p0 end
  scrape
  b0=$(probes bw) l0=$(probes lat) p0=$(ok_probes bw)
  end=$((SECONDS + WINDOW * (6 + 6) + 30))
  until scrape && (($(probes bw) >= b0 + WINDOW)); do
    kill -0 "$DAEMON" || lab_fail "the daemon died"
    ((SECONDS < end)) || lab_fail "$name: $WINDOW bw probes did not end within $((end - SECONDS)) s: a probe hangs?"
    lab_sleep 0.5
  done
  lab_log "$name: bw $((b0)) -> $(probes bw) probes ($(($(ok_probes bw) - p0)) ok), lat $l0 -> $(probes lat);" \
    "failures bw: $(failures bw) lat: $(failures lat)"
}

lab_wait_signal responder-up 120
start_daemon "$LAB_OUT/prober.yml"
end=$((SECONDS + 120))
until scrape && (($(ok_probes bw) >= 1 && $(ok_probes lat) >= 1)); do
  ((SECONDS < end)) || lab_fail "no successful bw and lat probe on the healthy link: bw $(failures bw) lat $(failures lat)"
  lab_sleep 0.5
done
lab_log "healthy link: first bw and lat probes succeeded"

read -r port0 attr0 < <(loss_signals)
window healthy
read -r port1 attr1 < <(loss_signals)
lat_max_healthy=$(val 'rxe_probe_latency_max_seconds{module="lat",peer="peer"}')

tc qdisc add dev "$LAB_NETDEV" root netem loss 1%
lab_log "netem loss 1% on $LAB_NETDEV: $(tc qdisc show dev "$LAB_NETDEV" | head -n 1)"
okl0=$(ok_probes lat)
window lossy
read -r port2 attr2 < <(loss_signals)
tc qdisc del dev "$LAB_NETDEV" root
lab_log "loss signals (port seq NAKs + completer retries / attributed to bw): healthy window +$((port1 - port0)) / +$((attr1 - attr0)), lossy window +$((port2 - port1)) / +$((attr2 - attr1)); lat max healthy $lat_max_healthy s, lossy $(val 'rxe_probe_latency_max_seconds{module="lat",peer="peer"}') s"
((port2 - port1 > port1 - port0)) || lab_fail "the port counters did not show the loss"
((attr2 - attr1 > attr1 - attr0)) || lab_fail "the bw probes' attributed counters did not show the loss"
(($(ok_probes lat) > okl0)) || lab_fail "no lat probe succeeded with 1 % loss (a lost packet is retransmitted)"

# Recovery: loss gone, probes succeed again.
base=$(probes bw)
end=$((SECONDS + 60))
until scrape && (($(probes bw) > base)) && [[ $(val 'rxe_probe_success{module="bw",peer="peer"}') == 1 ]]; do
  ((SECONDS < end)) || lab_fail "bw probes did not succeed again after the loss ended"
  lab_sleep 0.5
done
kill -0 "$DAEMON" || lab_fail "the daemon died"
lab_signal prober-done
lab_log PASS
