#!/usr/bin/env bash
# lab: vms=1 timeout=420
# Faults a long-running host meets (issue 14, item 4), with a prober daemon probing a
# responder daemon (two processes on one VM, over rxe loopback; send_lat every 2 s):
#  (d) the responder daemon is stopped and started again 10 times in a row: each time the
#      prober counts a failure with a reason, then succeeds again; afterwards the prober
#      has the fds and threads it had before (nothing leaked per failed probe);
#  (e) SIGHUP to the prober every second for a minute: every reload succeeds, the daemon
#      stays up, probes keep succeeding (no failure counted meanwhile), no fd/thread growth.
# Every wait polls a condition with a deadline; nothing is timed by fixed sleeps (the
# 1 s between two SIGHUPs is the fault's rate, not a wait).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lab/probe_lib.sh
. "$(dirname "$0")/../probe_lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
PROM=$LAB_OUT/metrics.prom
RESTARTS=10 HUPS=60
[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER"
cat >"$LAB_OUT/responder.yml" <<EOF
responder: {enabled: true, listen_addresses: [":19793"], allowed_cidrs: ["10.77.0.0/24"]}
EOF
cat >"$LAB_OUT/prober.yml" <<EOF
responder: {enabled: false}
peers: [{name: resp, address: $LAB_IP, port: 19793}]
modules:
  lat: {type: send_lat, interval: 2s, timeout: 2s, iterations: 20}
EOF
DAEMON='' DAEMON2='' # the prober, the responder
trap plib_on_exit EXIT
start_responder() {
  "$EXPORTER" --config.file "$LAB_OUT/responder.yml" --web.listen-address=127.0.0.1:19795 \
    >>"$LAB_OUT/responder.log" 2>&1 &
  DAEMON2=$!
  lab_wait_listen 19793 60 || lab_fail "the responder did not listen: $(tail -n 5 "$LAB_OUT/responder.log")"
}
stop_responder() {
  kill -TERM "$DAEMON2"
  lab_bg_wait "$DAEMON2" 20 || lab_fail "the responder did not stop on SIGTERM"
}
start_responder
"$EXPORTER" --config.file "$LAB_OUT/prober.yml" >"$LAB_OUT/prober.log" 2>&1 &
DAEMON=$!
lab_wait_listen 19791 60 || lab_fail "the prober did not listen: $(tail -n 5 "$LAB_OUT/prober.log")"

val() { plib_val "$@"; }
L='module="lat",peer="resp"'
failures() { plib_failures lat resp; }
failed() { awk -v p="rxe_probe_failures_total{$L," 'index($1, p) == 1 {s += $2} END {print s + 0}' "$PROM"; }
alive() { kill -0 "$DAEMON" 2>/dev/null || lab_fail "the prober died: $(tail -n 5 "$LAB_OUT/prober.log")"; }
until_ok() { plib_until "$@"; }
scrape() { plib_scrape; }
probes() { val "rxe_probes_total{$L}"; }
next_success() { (($(probes) > $1)) && [[ $(val "rxe_probe_success{$L}") == 1 ]]; }
next_failure() { (($(probes) > $1)) && [[ $(val "rxe_probe_success{$L}") == 0 ]]; }
fds() { plib_fds "$DAEMON"; }
threads() { plib_threads "$DAEMON"; }
settled() { plib_settled "$DAEMON" "$@"; }

until_ok "the first probe succeeded" 90 next_success 0
fd0=$(fds) th0=$(threads)
lab_log "prober baseline: $fd0 fds, $th0 threads"

# (d) The responder restarted 10 times in a row.
for ((i = 1; i <= RESTARTS; i++)); do
  base=$(probes)
  stop_responder
  until_ok "(d) restart $i: a probe of the stopped responder failed" 30 next_failure "$base"
  start_responder
  base=$(probes)
  until_ok "(d) restart $i: probes succeed again" 30 next_success "$base"
  lab_log "(d) restart $i: failed, then recovered; failures so far: $(failures)"
done
(($(failed) >= RESTARTS)) || lab_fail "(d) $(failed) failures counted for $RESTARTS restarts"
settled "$fd0" "$th0"
lab_log "(d) OK: prober $(fds) fds, $(threads) threads after $RESTARTS restarts (before: $fd0, $th0)"

# (e) SIGHUP every second for a minute while probing.
scrape
f0=$(failed) p0=$(probes) t0=$(val rxe_exporter_config_last_reload_success_timestamp_seconds)
for ((i = 1; i <= HUPS; i++)); do
  kill -HUP "$DAEMON"
  alive
  lab_sleep 1
done
reload_ok() { [[ $(val rxe_exporter_config_last_reload_successful) == 1 ]]; }
until_ok "(e) the last reload succeeded" 30 reload_ok
t1=$(val rxe_exporter_config_last_reload_success_timestamp_seconds)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }' || lab_fail "(e) no successful reload recorded ($t0 -> $t1)"
n=$(($(probes) - p0))
lab_log "(e) $HUPS SIGHUPs: $n probes meanwhile, failures $(($(failed) - f0)) ($(failures)); reloads logged: $(grep -ci reload "$LAB_OUT/prober.log" || true)"
(($(failed) == f0)) || lab_fail "(e) probes failed during the reloads: $(failures)"
# 30 intervals of 2 s: a quarter is far below what any host reaches, 0 means the reloads starve the prober.
((n >= 7)) || lab_fail "(e) only $n probes in $HUPS s of reloads (interval 2 s)"
base=$(probes)
until_ok "(e) probes succeed after the reloads" 30 next_success "$base"
settled "$fd0" "$th0"
lab_log "(e) OK: prober $(fds) fds, $(threads) threads (before: $fd0, $th0)"
lab_log PASS
