#!/usr/bin/env bash
# lab: vms=3 timeout=900 mem=1024
# End-to-end: three VMs run rxe_exporter probing each other (full mesh, send_lat + write_bw);
# vm0 runs Debian's prometheus on loopback scraping all three with the project's rules loaded.
#  1. every dashboard query returns data (check_dashboards.py --prometheus), every rule is healthy,
#     no alert fires on the healthy mesh;
#  2. a netem delay on the host1<->host2 link only makes RxeProbeLatencyRegression go
#     pending/firing for that pair (both directions) and for no other pair.
# The regression windows are shortened for the lab by rewriting a copy of the rules
# (baselines [1d]/[1w] offset 1h -> [3m] offset 1m, current :ok[15m] -> [1m], for: 15m -> 20s);
# the expressions themselves are the shipped ones.
# Run as a lab case: copy to tests/lab/cases/prometheus_e2e.sh (ctest lab.prometheus_e2e), or
#   tests/lab/lab.sh --vms 3 --timeout 900 -- dashboards/tools/lab_prometheus_e2e.sh
set -euo pipefail
# shellcheck source=/dev/null
. "$LAB_SRC/tests/lab/lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
DASH=$LAB_SRC/dashboards
W=$LAB_OUT/vm$LAB_INDEX
mkdir -p "$W"
read -r -a IPS <<<"$LAB_IPS"
PROM=http://127.0.0.1:9090
DELAY=${E2E_NETEM_DELAY:-5ms}
BASELINE_SECONDS=${E2E_BASELINE_SECONDS:-200}

[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER (build the rxe_exporter target)"
command -v prometheus >/dev/null || lab_fail "no prometheus binary (scripts/install-deps.sh)"

# --- every VM: exporter probing all three (host$i = 10.77.0.1$i) ---------------------------------
{
  echo 'devices: {include: "rxe.*"}'
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"], max_sessions: 4}'
  echo 'prober: {max_concurrent: 2, max_bandwidth_per_device: 1}'
  echo 'peers:'
  for i in "${!IPS[@]}"; do
    ((i == LAB_INDEX)) || echo "  - {name: host$i, address: ${IPS[$i]}}"
  done
  echo 'modules:'
  echo '  send_lat: {type: send_lat, interval: 5s, timeout: 5s, iterations: 200}'
  echo '  write_bw: {type: write_bw, interval: 30s, timeout: 10s, size: 64KiB, duration: 1s}'
} >"$W/rxe_exporter.yml"
"$EXPORTER" --config.file="$W/rxe_exporter.yml" --web.listen-address=:19791 >"$W/exporter.log" 2>&1 &
EXPORTER_PID=$!
# shellcheck disable=SC2154 # rc is assigned inside the trap
trap 'rc=$?; kill $EXPORTER_PID 2>/dev/null; [[ -z ${PROM_PID:-} ]] || kill $PROM_PID 2>/dev/null; lab__on_exit $rc' EXIT
lab_wait_listen 19791 60 || lab_fail "exporter did not listen: $(tail -5 "$W/exporter.log")"
lab_barrier exporters-up 180

if ((LAB_INDEX == 1)); then # ---- host1: applies the delay towards host2 only
  lab_wait_signal apply-netem $((BASELINE_SECONDS + 300))
  tc qdisc add dev "$LAB_NETDEV" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
  tc qdisc add dev "$LAB_NETDEV" parent 1:3 handle 30: netem delay "$DELAY"
  tc filter add dev "$LAB_NETDEV" parent 1: protocol ip prio 1 u32 match ip dst "${IPS[2]}/32" flowid 1:3
  lab_log "netem delay $DELAY on $LAB_NETDEV towards ${IPS[2]}"
  lab_signal netem-applied
fi

if ((LAB_INDEX != 0)); then
  lab_wait_signal e2e-done 800 || true
  exit 0
fi

# ---- vm0: Prometheus ------------------------------------------------------------------------------
mkdir -p "$W/rules"
for f in "$DASH"/rules/*.yml; do
  sed -e 's/\[1d\] offset 1h/[3m] offset 1m/g; s/\[1w\] offset 1h/[3m] offset 1m/g' \
    -e 's/:ok\[15m\]/:ok[1m]/g; s/interval: [15]m$/interval: 5s/' \
    -e '/alert: RxeProbe\(Bandwidth\|Latency\|LatencyP99\)Regression/,/labels:/ s/for: 15m/for: 20s/' \
    "$f" >"$W/rules/$(basename "$f")"
done
promtool check rules "$W"/rules/*.yml >/dev/null || lab_fail "shortened rules do not parse"
{
  echo "global: {scrape_interval: 5s, evaluation_interval: 5s}"
  echo "rule_files: ['$W/rules/*.yml']"
  echo "scrape_configs:"
  echo "  - job_name: rxe_exporter"
  echo "    static_configs:"
  for i in "${!IPS[@]}"; do
    echo "      - {targets: ['${IPS[$i]}:19791'], labels: {instance: host$i}}"
  done
} >"$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path=/tmp/prometheus-data \
  --web.listen-address=127.0.0.1:9090 >"$W/prometheus.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 600); do curl -fs "$PROM/-/ready" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "$PROM/-/ready" >/dev/null || lab_fail "prometheus not ready: $(tail -5 "$W/prometheus.log")"

q() { curl -fsG "$PROM/api/v1/query" --data-urlencode "query=$1"; }

lab_log "collecting a baseline for $BASELINE_SECONDS s"
sleep "$BASELINE_SECONDS"
curl -fs "$PROM/api/v1/targets" | jq -e '[.data.activeTargets[] | select(.health == "up")] | length == 3' >/dev/null ||
  lab_fail "not all 3 exporters are up in Prometheus"
pairs=$(q 'count(rxe_probe_success == 1)' | jq -r '.data.result[0].value[1] // 0')
lab_log "pairs with a successful last probe: $pairs (of 12)"
((pairs >= 10)) || lab_fail "probes are not succeeding: $(q 'rxe_probe_success == 0' | jq -c '.data.result[].metric')"

# 1. Dashboards and rules on the healthy mesh.
python3 "$DASH/tools/check_dashboards.py" --prometheus "$PROM" --scrape-interval 5s --interval 5s --range 5m \
  --rules "$W/rules/*.yml" --no-promtool >"$W/check_dashboards.log" 2>&1 ||
  lab_fail "dashboard queries against Prometheus: $(grep -E 'FAIL|Dead|^  ' "$W/check_dashboards.log" | head -20)"
lab_log "$(tail -1 "$W/check_dashboards.log")"
bad=$(curl -fs "$PROM/api/v1/rules" | jq -r '.data.groups[].rules[] | select(.health == "err") | .name')
[[ -z $bad ]] || lab_fail "rules with errors: $bad"
firing=$(q 'ALERTS{alertstate="firing"}' | jq -r '.data.result[].metric.alertname' | sort -u | tr '\n' ' ')
[[ -z $firing ]] || lab_fail "alerts firing on the healthy mesh: $firing"

# 2. Latency regression on host1<->host2 only.
lab_signal apply-netem
lab_wait_signal netem-applied 60 || lab_fail "host1 did not apply netem"
want='host1>host2 host2>host1'
state=""
for _ in $(seq 60); do
  sleep 5
  got=$(q 'ALERTS{alertname="RxeProbeLatencyRegression"}' |
    jq -r '.data.result[].metric | "\(.instance)>\(.peer) \(.alertstate)"' | sort -u)
  [[ -n $got ]] && lab_log "RxeProbeLatencyRegression: $(echo "$got" | tr '\n' ',')"
  pairs_alerting=$(echo "$got" | awk 'NF {print $1}' | sort -u | tr '\n' ' ' | sed 's/ $//')
  for p in $pairs_alerting; do
    [[ " $want " == *" $p "* ]] || lab_fail "latency regression alert for an undelayed pair: $p"
  done
  if echo "$got" | grep -q firing; then state=firing; break; fi
  [[ -n $got ]] && state=pending
done
[[ -n $state ]] || lab_fail "RxeProbeLatencyRegression never became pending for host1<->host2"
lab_log "ok: RxeProbeLatencyRegression $state for ${pairs_alerting:-?} only"
q 'pair:rxe_probe_latency_median_seconds:median15m' | jq -c '.data.result[] | [.metric.instance, .metric.peer, .value[1]]' \
  >"$W/medians.txt" || true
lab_signal e2e-done
