#!/usr/bin/env bash
# The main job inside a lab VM (run by scripts/demo.sh): rxe_exporter on the
# real rxe0, probing itself over rxe loopback with all four probe types,
# perftest traffic to move the counters, then the scraped /metrics.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"

exporter="$LAB_BUILD/exporter/rxe_exporter"
# shellcheck disable=SC2153 # LAB_SRC comes from lab.sh
config="$LAB_SRC/config/examples/self.yml"
serve=${1:-60}  # seconds to keep serving (scripts/demo.sh passes DEMO_SERVE_SECONDS)
[ -x "$exporter" ] || lab_fail "$exporter not built (run scripts/build.sh)"

lab_log "rdma link: $(rdma link show)"
"$exporter" --config.file "$config" --web.listen-address=:19791 >"$LAB_OUT/exporter.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
lab_wait_listen 19791 30 || lab_fail "rxe_exporter did not start: $(tail -5 "$LAB_OUT/exporter.log")"

lab_log "perftest traffic on rxe0 (ib_write_bw loopback to $LAB_IP)"
ib_write_bw -d rxe0 -D 2 >/dev/null 2>&1 &
server=$!
lab_wait_listen 18515 20
ib_write_bw -d rxe0 -D 2 "$LAB_IP" | grep -A1 'BW average' || true
wait $server || true

lab_log "waiting for every probe module to report"
for _ in $(seq 1 90); do
  done_modules=$(curl -s localhost:19791/metrics | awk '/^rxe_probes_total\{/ && $2 > 0' | wc -l)
  [ "$done_modules" -ge 4 ] && break
  sleep 1
done
curl -s localhost:19791/metrics > "$LAB_OUT/metrics.txt"
cat "$LAB_OUT/metrics.txt"
echo
lab_log "summary (full output above and in $LAB_OUT/metrics.txt):"
grep -E '^rxe_(port_(state|active|rate|sent_packets|received_packets|completer_retries)|netdev_(mtu|up)|device_resources|probe_(success|bandwidth_bytes_per_second|latency_median_seconds)|exporter_scrape_collector_success)' \
  "$LAB_OUT/metrics.txt" || true
if [ "$serve" -gt 0 ]; then
  lab_log "serving http://127.0.0.1:19791/metrics on the host for ${serve}s (DEMO_SERVE_SECONDS)"
  sleep "$serve"
fi
