#!/usr/bin/env bash
# Every dashboard query must return data from a real Prometheus 2.42 that scraped (synthetic)
# exporters: three fake hosts (fake_exporter.py, the metric set of docs/DESIGN.md) scraped every
# second by Debian's `prometheus` on loopback, with the rule files loaded. Then:
#   - check_dashboards.py --prometheus: no dead panels or variables, every rule expression runs;
#   - /api/v1/rules: every rule group loaded and healthy; /api/v1/targets: all targets up.
# The lab case tests/lab/cases/prometheus_e2e.sh does the same against real rxe_exporters.
#   prometheus_synthetic_test.sh [PROMETHEUS_BINARY] [-- fake_exporter.py arguments, e.g. --drop METRIC]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DASH=$(cd "$HERE/.." && pwd)
PROMETHEUS=${1:-prometheus}
shift || true
[[ ${1:-} == -- ]] && shift
FAKE_ARGS=("$@")
PY=${PYTHON:-python3}
command -v "$PROMETHEUS" >/dev/null || { echo "SKIP: no prometheus binary"; exit 77; }

WORK=$(mktemp -d /tmp/rxe-prom-synth.XXXXXX)
PIDS=()
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

"$PY" "$HERE/fake_exporter.py" --hosts 3 --ports-file "$WORK/ports" "${FAKE_ARGS[@]}" &
PIDS+=($!)
for _ in $(seq 100); do [[ -s $WORK/ports ]] && break; sleep 0.1; done
[[ -s $WORK/ports ]] || { echo "FAIL: fake exporter did not start"; exit 1; }

PROM_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{
  echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
  echo "rule_files: ['$DASH/rules/*.yml']"
  echo "scrape_configs:"
  echo "  - job_name: rxe_exporter"
  echo "    static_configs:"
  i=0
  while read -r target; do
    # instance = the host's name as its peers know it, so the mesh matrices are square.
    echo "      - {targets: ['$target'], labels: {instance: host$i}}"
    i=$((i + 1))
  done <"$WORK/ports"
} >"$WORK/prometheus.yml"

"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
URL="http://127.0.0.1:$PROM_PORT"
for _ in $(seq 300); do
  curl -fs "$URL/-/ready" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "$URL/-/ready" >/dev/null || { echo "FAIL: prometheus not ready"; cat "$WORK/prometheus.log"; exit 1; }

# Enough samples for rate()/increase() and for the 1 s recording rules to have run.
sleep 12

status=0
curl -fs "$URL/api/v1/targets" | jq -e '[.data.activeTargets[] | select(.health != "up")] | length == 0' >/dev/null ||
  { echo "FAIL: not all targets up"; curl -fs "$URL/api/v1/targets" | jq '.data.activeTargets[] | {scrapeUrl, health, lastError}'; status=1; }
groups=$(curl -fs "$URL/api/v1/rules" | jq '.data.groups | length')
bad=$(curl -fs "$URL/api/v1/rules" | jq -r '.data.groups[].rules[] | select(.health == "err") | "\(.name): \(.lastError)"')
echo "prometheus loaded $groups rule groups"
[[ $groups -ge 5 && -z $bad ]] || { echo "FAIL: rules not healthy: $bad"; status=1; }
firing=$(curl -fs "$URL/api/v1/alerts" | jq -r '.data.alerts[] | select(.labels.alertname != "RxeProbeFailureRatioHigh") | .labels.alertname' | sort -u)
# The fake exporter is healthy; only its 10 % synthetic timeouts may trip the ratio alert.
[[ -z $firing ]] || { echo "FAIL: alerts active on healthy synthetic data: $firing"; status=1; }

"$PY" "$HERE/check_dashboards.py" --prometheus "$URL" --scrape-interval 1s --interval 1s --range 10s \
  --no-promtool || status=1
exit $status
