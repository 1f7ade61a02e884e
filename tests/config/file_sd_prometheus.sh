#!/usr/bin/env bash
# One file_sd file for both Prometheus and the mesh (docs/configuration.md, "Peer discovery
# (file_sd) and mesh subsets"). The mesh side is in tests/config/file_sd_test.cc and
# examples_test.cc; this is the Prometheus side, with Debian's promtool and prometheus 2.42:
#   1. promtool check config accepts config/examples/prometheus_file_sd.yml pointed at the
#      example file and the valid fixtures (promtool reads and checks file_sd files), and
#      rejects the JSON fixture with a number as a label value, as the mesh does;
#   2. a running Prometheus discovers the example's targets with the example's relabeling:
#      instance = the target as written (the mesh's peer name), address on port 19791, rack.
#   file_sd_prometheus.sh SOURCE_DIR [PROMTOOL] [PROMETHEUS]
set -euo pipefail
SRC=$1
PROMTOOL=${2:-promtool}
PROMETHEUS=${3:-prometheus}
for tool in "$PROMTOOL" "$PROMETHEUS" jq curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
EX=$SRC/config/examples
FX=$SRC/tests/fixtures/config
WORK=$(mktemp -d /tmp/rxe-file-sd.XXXXXX)
PID=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  [[ -n $PID ]] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

# The example job, reading the given files instead of /etc/rxe_exporter/file_sd_hosts.json.
job() {
  local files=$1
  sed "s|\[/etc/rxe_exporter/file_sd_hosts.json\]|[$files]|" "$EX/prometheus_file_sd.yml"
}

job "$EX/file_sd_hosts.json, $FX/file_sd/racks.json, $FX/file_sd/more.yml" >"$WORK/good.yml"
grep -q "$FX/file_sd/more.yml" "$WORK/good.yml" || { echo "FAIL: files not substituted"; exit 1; }
"$PROMTOOL" check config "$WORK/good.yml" || { echo "FAIL: promtool rejects the valid files"; exit 1; }

printf '[{"targets": ["host-a"], "labels": {"rack": 1}}]\n' >"$WORK/number.json"
job "$WORK/number.json" >"$WORK/bad.yml"
if "$PROMTOOL" check config "$WORK/bad.yml" >"$WORK/bad.log" 2>&1; then
  echo "FAIL: promtool accepts a number as a label value"; exit 1
fi
grep -q 'cannot unmarshal number' "$WORK/bad.log" || { echo "FAIL: unexpected promtool error:"; cat "$WORK/bad.log"; exit 1; }

# 2. A real Prometheus (the scrapes themselves fail: nothing listens there).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{ echo "global: {scrape_interval: 1h}"; job "$EX/file_sd_hosts.json, $FX/file_sd/racks.json"; } >"$WORK/prometheus.yml"
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PORT" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
PID=$!
URL="http://127.0.0.1:$PORT"
# instance (= the mesh's peer name), scrape URL, rack
want='10.0.0.3 http://10.0.0.3:19791/metrics r1
10.77.0.10 http://10.77.0.10:19791/metrics r1
10.77.0.11 http://10.77.0.11:19791/metrics r1
10.77.0.12 http://10.77.0.12:19791/metrics r2
[fd00::5]:19801 http://[fd00::5]:19791/metrics r2
[fd00::6] http://[fd00::6]:19791/metrics r2
host-a http://host-a:19791/metrics r1
host-b http://host-b:19791/metrics r1
host-d:19800 http://host-d:19791/metrics r2'
got=
for _ in $(seq 600); do  # up to 60 s; discovery reaches the scrape manager within ~5 s
  got=$(curl -fs "$URL/api/v1/targets" 2>/dev/null |
    jq -r '.data.activeTargets[] | "\(.labels.instance) \(.scrapeUrl) \(.labels.rack)"' 2>/dev/null |
    LC_ALL=C sort) || true
  [[ $(wc -l <<<"$got") -ge 9 ]] && break
  sleep 0.1
done
echo "prometheus targets (instance, scrape URL, rack):"
echo "$got"
[[ $got == "$want" ]] || { echo "FAIL: want"; echo "$want"; cat "$WORK/prometheus.log"; exit 1; }
echo "OK: one file_sd file for Prometheus and the mesh"
