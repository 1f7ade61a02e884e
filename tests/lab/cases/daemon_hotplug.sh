#!/usr/bin/env bash
# lab: vms=1 timeout=300
# Faults a long-running host meets (issue 14, item 4), with the daemon running and probing
# itself over rxe loopback (send_lat every 2 s):
#  (a) `rdma link delete rxe0`, then `rdma link add` again: rxe0's series go away and come
#      back (one device, promtool clean: no stale or duplicate series), probes fail with a
#      reason while it is gone and succeed again after, the daemon never dies;
#  (b) the netdev under rxe0 down, then up: rxe_port_state follows (DOWN, then ACTIVE),
#      rxe_netdev_up 0 then 1, probes fail with a reason and recover.
# At the end the daemon has the open fds and threads it had before the faults.
# Every wait polls a condition with a deadline; nothing is timed by fixed sleeps.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lab/probe_lib.sh
. "$(dirname "$0")/../probe_lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
PROM=$LAB_OUT/metrics.prom
[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER"
cat >"$LAB_OUT/self.yml" <<EOF
responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}
peers: [{name: self, address: $LAB_IP}]
modules:
  lat: {type: send_lat, interval: 2s, timeout: 2s, iterations: 20}
EOF
"$EXPORTER" --config.file "$LAB_OUT/self.yml" >"$LAB_OUT/exporter.log" 2>&1 &
DAEMON=$!
trap plib_on_exit EXIT
lab_wait_listen 19791 60 || lab_fail "exporter did not listen: $(tail -n 5 "$LAB_OUT/exporter.log")"

val() { plib_val "$@"; }
L='module="lat",peer="self"'
failures() { plib_failures lat self; }
until_ok() {
  plib_until "$@"
  lab_log "ok: $1"
}
probes() { val "rxe_probes_total{$L}"; }
next_success() { (($(probes) > $1)) && [[ $(val "rxe_probe_success{$L}") == 1 ]]; }
next_failure() { (($(probes) > $1)) && [[ $(val "rxe_probe_success{$L}") == 0 ]]; }
no_rxe0() { ! grep -q 'device="rxe0"' "$PROM"; }
port_state() { [[ $(val 'rxe_port_state{device="rxe0",port="1"}') == "$1" ]]; }
netdev_up() { [[ $(val "rxe_netdev_up{device=\"rxe0\",port=\"1\",netdev=\"$LAB_NETDEV\"}") == "$1" ]]; }
clean_metrics() {
  promtool check metrics <"$PROM" >"$LAB_OUT/promtool.txt" 2>&1 &&
    (($(grep -c '^rxe_device_info{device="rxe0"' "$PROM") == 1))
}

until_ok "the first probe succeeded" 90 next_success 0
fd0=$(plib_fds $DAEMON) th0=$(plib_threads $DAEMON)
lab_log "daemon baseline: $fd0 fds, $th0 threads"

# (a) The device goes away and comes back.
base=$(probes)
rdma link delete "$LAB_RDMA_DEV"
lab_log "(a) rdma link delete $LAB_RDMA_DEV"
until_ok "(a) every rxe0 series is gone" 30 no_rxe0
until_ok "(a) a probe failed while rxe0 is gone" 30 next_failure "$base"
lab_log "(a) failures: $(failures)"
[[ -n $(failures) ]] || lab_fail "(a) the failed probe counted no reason"
curl -sf --max-time 10 http://127.0.0.1:19791/-/healthy >/dev/null || lab_fail "(a) not healthy without rxe0"
rdma link add "$LAB_RDMA_DEV" type rxe netdev "$LAB_NETDEV"
lab_log "(a) rdma link add $LAB_RDMA_DEV again"
until_ok "(a) rxe0 port 1 ACTIVE again in /metrics" 60 port_state 4
until_ok "(a) series back: one rxe0, promtool clean" 30 clean_metrics
base=$(probes)
until_ok "(a) probes succeed again" 60 next_success "$base"

# (b) The netdev under rxe0 goes down and comes up.
f_before=$(failures)
base=$(probes)
ip link set "$LAB_NETDEV" down
lab_log "(b) ip link set $LAB_NETDEV down"
until_ok "(b) rxe_port_state DOWN (1), rxe_netdev_up 0" 30 eval 'port_state 1 && netdev_up 0'
until_ok "(b) a probe failed while the netdev is down" 30 next_failure "$base"
[[ $(failures) != "$f_before" ]] || lab_fail "(b) no failure reason counted"
lab_log "(b) failures: $(failures)"
ip link set "$LAB_NETDEV" up
lab_log "(b) ip link set $LAB_NETDEV up"
until_ok "(b) rxe_port_state ACTIVE (4), rxe_netdev_up 1" 60 eval 'port_state 4 && netdev_up 1'
base=$(probes)
until_ok "(b) probes succeed again" 60 next_success "$base"
until_ok "(b) promtool clean, one rxe0" 10 clean_metrics

# No fds or threads left behind by the faults.
plib_settled "$DAEMON" "$fd0" "$th0"
kill -0 "$DAEMON" || lab_fail "the daemon died"
lab_log "daemon after the faults: $(plib_fds $DAEMON) fds, $(plib_threads $DAEMON) threads (before: $fd0, $th0); failures: $(failures)"
lab_log PASS
