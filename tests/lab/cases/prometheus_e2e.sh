#!/usr/bin/env bash
# lab: vms=3 timeout=1080 mem=1024
# Dashboards and alerts end to end on real rxe. Three VMs run rxe_exporter probing each other:
# send_lat over the full mesh (no self pairs) every 12 s, write_bw around a ring (host0->host1->
# host2->host0) every 20 s, and a ud_ping mesh (every 5 s, all peers: the *UD ping mesh*
# dashboard and the ud_ping rules); host0 also probes "ghost", a configured peer with nothing
# listening (connect_refused; for ud_ping, address fetch errors), so the failure panels show real
# failures. Every VM delays its egress by
# E2E_BASE_DELAY (100ms) with netem from the start: between TCG VMs on a shared host the one-way
# latency is otherwise 1-40 ms of pure scheduling noise that moves with the host's load from one
# minute to the next. On top of a 15 ms delay that noise still moved every pair's send_lat median
# from 19 to 43 ms for minutes when the host got busy (clean-clone run beside other work: the
# regression alerts went pending on every pair of the healthy mesh, ratio up to 1.8 > 1.5); on
# top of 100 ms the same 25 ms is a ratio of 1.25. The RC modules use qp_timeout 18 (~1.07 s
# local ACK timeout): at the default ~67 ms every round trip of >= 200 ms would be retransmitted.
# vm0 runs Debian's prometheus on 127.0.0.1 scraping the three exporters (instance = host0..2,
# the names the peers use) with a copy of the shipped rules whose windows are shortened for the
# lab, nothing else changed:
#   baselines [1d]/[1w] offset 1h -> [3m] offset 1m; "current" latency :ok[15m] -> [1m],
#   bandwidth :ok[15m] -> [2m] (a 1m window would hold 3 bandwidth results); group intervals
#   1m/5m -> 5s; `for: 15m` of the three regression alerts -> 20s; the bandwidth regression
#   fraction 0.8 -> 0.5: a 2-minute median of 6 write_bw results against 9 before it is not the
#   shipped 15 m against a day, and lab bandwidth drifts by up to 1.5x within seconds
#   (tests/lab/README.md), so at 0.8 it once fired on the healthy mesh (1 of 4 CI runs).
#  1. healthy mesh (E2E_HEALTHY_SECONDS, 120): all targets up, every rule healthy, every mesh
#     pair succeeded, the ghost fails with connect_refused and its ud_ping loss ratio is 1 (its
#     address is never fetched: unresolved slots count as lost); no alert fired except for the ghost,
#     no regression alert was even pending (from the ALERTS history); pending alerts are listed;
#  2. the regression: host1's egress towards host2 only gets E2E_EXTRA_DELAY (300ms) more delay
#     (send_lat between them: ~100 -> ~250 ms, a ratio of 2.5, or 1.8 against a baseline taken
#     while the host was busy): RxeProbeLatencyRegression must fire (at some time, from the
#     ALERTS history) for host1>host2 and host2>host1 (each send_lat round trip between them
#     crosses the delayed egress once) and no regression alert may be pending or firing for any
#     other pair at any time (ALERTS history of the whole run);
#  3. every dashboard panel query is accepted by promtool and returns data, in the default view
#     and for real variable values, "Empty when" panels included (check_dashboards.py
#     --prometheus --strict-empty), and every recording rule has recorded data
#     (--require-rule-data); exempt, as no peer is unreachable on the healthy mesh: the mesh
#     dashboard's unreachable-targets table and peer:rxe_ud_ping_sources_unreachable:count5m.
# vm0's monitoring work (prometheus, curl, jq, python) runs at nice 10 and the heavy step 3 last:
# CPU taken from vm0's exporter would move host0's probe latencies. On failure, range data of the
# run is left in $LAB_OUT/vm0/range-*.json.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

EXPORTER=$LAB_BUILD/exporter/rxe_exporter
# shellcheck disable=SC2153 # LAB_SRC comes from lab.sh
DASH=$LAB_SRC/dashboards
W=$LAB_OUT/vm$LAB_INDEX
PROM=http://127.0.0.1:9090
BASE_DELAY=${E2E_BASE_DELAY:-100} # ms, every VM's egress
EXTRA_DELAY=${E2E_EXTRA_DELAY:-300} # ms, added on host1 -> host2
HEALTHY_SECONDS=${E2E_HEALTHY_SECONDS:-120}
FIRE_TIMEOUT=${E2E_FIRE_TIMEOUT:-180}
AFFECTED="host1>host2 host2>host1"
read -r -a IPS <<<"$LAB_IPS"
mkdir -p "$W"
EXPORTER_PID="" PROM_PID=""

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  local rc=$1
  [[ -z $PROM_PID ]] || kill "$PROM_PID" 2>/dev/null || true
  [[ -z $EXPORTER_PID ]] || kill "$EXPORTER_PID" 2>/dev/null || true
  lab__on_exit "$rc"
}
trap 'cleanup $?' EXIT

[[ -x $EXPORTER ]] || lab_fail "no $EXPORTER (build the rxe_exporter target)"
command -v prometheus >/dev/null || lab_fail "no prometheus binary (scripts/install-deps.sh)"

# --- every VM: a fixed delay on its egress (class 1:3 = towards host2, only used by host1) and an
# exporter (host$i = 10.77.0.1$i) ----------------------------------------------------------------------
tc qdisc add dev "$LAB_NETDEV" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
tc qdisc add dev "$LAB_NETDEV" parent 1:2 handle 20: netem delay "${BASE_DELAY}ms"
tc qdisc add dev "$LAB_NETDEV" parent 1:3 handle 30: netem delay "${BASE_DELAY}ms"
((LAB_INDEX != 1)) || tc filter add dev "$LAB_NETDEV" parent 1: protocol ip prio 1 u32 match ip dst "${IPS[2]}/32" flowid 1:3
next=$(((LAB_INDEX + 1) % LAB_NVMS))
{
  echo 'devices: {include: "rxe.*"}'
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"], max_sessions: 4}'
  echo 'prober: {max_concurrent: 2, max_bandwidth_per_device: 1}'
  echo 'peers:'
  for i in "${!IPS[@]}"; do
    ((i == LAB_INDEX)) || echo "  - {name: host$i, address: ${IPS[$i]}}"
  done
  # A configured peer that does not answer: real failures for the failure panels and alerts.
  ((LAB_INDEX != 0)) || echo "  - {name: ghost, address: $LAB_IP, port: 19799}"
  echo 'modules:'
  # 10 round trips of 200 ms (500 ms on the delayed pair) plus the control exchange fit in 10 s.
  echo '  send_lat: {type: send_lat, interval: 12s, timeout: 10s, iterations: 10, qp_timeout: 18}'
  # tx_depth 2 (128 KiB in flight): bandwidth = window / RTT (~0.6 MB/s), set by the fixed delay
  # rather than by how much CPU the TCG VMs get (8-15 MB/s, varying).
  echo "  write_bw: {type: write_bw, interval: 20s, timeout: 10s, size: 64KiB, tx_depth: 2, duration: 1s, qp_timeout: 18, peers: [host$next]}"
  echo '  mesh: {type: ud_ping, interval: 5s, timeout: 1s}'
} >"$W/rxe_exporter.yml"
"$EXPORTER" --config.file="$W/rxe_exporter.yml" --web.listen-address=:19791 >"$W/exporter.log" 2>&1 &
EXPORTER_PID=$!
lab_wait_listen 19791 60 || lab_fail "exporter did not listen: $(tail -5 "$W/exporter.log")"
lab_barrier exporters-up 180

if ((LAB_INDEX == 1)); then # host1 delays its egress towards host2 only
  # Bounded by the lab's timeout (1080 s, the header) and by vm0's lab_abort, not by a guess of
  # how long vm0's healthy phase takes: at 6x vCPU overcommit it outlasted HEALTHY_SECONDS + 300.
  lab_wait_signal apply-netem 1080 || exit 1
  tc qdisc change dev "$LAB_NETDEV" parent 1:3 handle 30: netem delay "$((BASE_DELAY + EXTRA_DELAY))ms"
  lab_log "netem delay on $LAB_NETDEV towards ${IPS[2]} (host2): ${BASE_DELAY}ms -> $((BASE_DELAY + EXTRA_DELAY))ms"
  lab_signal netem-applied
fi
if ((LAB_INDEX != 0)); then
  lab_wait_signal e2e-done 1080 || exit 1
  lab_log "done"
  exit 0
fi

# --- vm0: Prometheus and the checks, at nice 10 ------------------------------------------------------
renice -n 10 -p $$ >/dev/null
PROBLEMS=()
problem() {
  echo "PROBLEM: $*" >&2
  PROBLEMS+=("$*")
}
q() { curl -fsG --max-time 30 "$PROM/api/v1/query" --data-urlencode "query=$1"; }
# pairs QUERY: "instance>peer" of every series of QUERY, sorted, one per line.
pairs() { q "$1" | jq -r '.data.result[].metric | "\(.instance)>\(.peer)"' | sort -u; }
# table QUERY SCALE UNIT: "instance>peer value" of every series, value * SCALE rounded to 0.01.
table() {
  q "$1" | jq -r --argjson s "$2" --arg u "$3" \
    '.data.result[] | "\(.metric.instance)>\(.metric.peer) \(.value[1] | tonumber * $s * 100 | round / 100)\($u)"' |
    sort | tr '\n' ';'
}
# alert_states SINCE: every alert pending/firing at some time since the Unix time SINCE, one
# "alertname instance>peer module state" line each (alerts without a peer: "-").
alert_states() {
  q "group by (alertname, instance, peer, module, alertstate) (max_over_time(ALERTS[$(($(date +%s) - $1 + 5))s]))" |
    jq -r '.data.result[].metric | "\(.alertname) \(.instance // "-")>\(.peer // "-") \(.module // "-") \(.alertstate)"' | sort
}
# why STATE ALERTNAME PAIR: why an alert that is not asserted on is pending here.
why() {
  case $2 in
    RxeProbeFailing | RxeProbeFailureRatioHigh)
      [[ $3 == host0\>ghost ]] && echo "(ghost: nothing listens, every probe fails: as intended)" ||
        echo "(a probe of this pair failed, see the failures above)" ;;
    RxeProbeResultsStale) echo "(first evaluations: the history was shorter than the pair's probe interval)" ;;
    RxeExporterAbsent) echo "(before the first scrape)" ;;
    RxeExporterDown) echo "(a scrape failed: slowest scrape of this target $(q "max_over_time(scrape_duration_seconds{instance=\"${3%>*}\"}[10m])" | jq -r '.data.result[0].value[1] // "?" | .[0:4]') s)" ;;
    RxeProbeRetriesHigh)
      echo "(retries/sequence errors attributed in the last 10m: $(q "sum by (counter) (increase(rxe_probe_attributed_hw_stat_total{instance=\"${3%>*}\",peer=\"${3#*>}\"}[10m])) > 0" |
        jq -r '[.data.result[] | "\(.metric.counter) \(.value[1] | tonumber | round)"] | join(", ")'); a descheduled TCG peer can outlast the ~1.07 s ACK timeout)" ;;
    RxePortRetryRateHigh | RxePortSequenceErrorRateHigh)
      echo "(completer retries $(q "rate(rxe_port_completer_retries_total{instance=\"${3%>*}\"}[10m])" | jq -r '.data.result[0].value[1] // "?" | .[0:4]')/s: a descheduled TCG peer can outlast the ~1.07 s ACK timeout)" ;;
    *) echo "" ;;
  esac
}
# dump: range data of the run for post-mortems.
dump() {
  local name expr end
  end=$(date +%s)
  for name in ALERTS up scrape_duration_seconds rxe_probe_success rxe_probe_duration_seconds \
    pair:rxe_probe_latency_median_seconds:median15m pair:rxe_probe_latency_median_seconds:median1d \
    pair:rxe_probe_latency_p99_seconds:median15m pair:rxe_probe_latency_p99_seconds:median1d \
    pair:rxe_probe_bandwidth_bytes_per_second:median15m pair:rxe_probe_bandwidth_bytes_per_second:median1d; do
    expr=$name
    curl -fsG --max-time 30 "$PROM/api/v1/query_range" --data-urlencode "query=$expr" \
      --data-urlencode "start=$T0" --data-urlencode "end=$end" --data-urlencode "step=5" \
      >"$W/range-${name//:/_}.json" 2>/dev/null || true
  done
}

R=$W/rules
mkdir -p "$R"
for f in "$DASH"/rules/*.yml; do
  sed -e 's/\[1d\] offset 1h/[3m] offset 1m/g; s/\[1w\] offset 1h/[3m] offset 1m/g' \
    -e 's/\(latency_[a-z0-9]*_seconds:ok\)\[15m\]/\1[1m]/g; s/\(bandwidth_bytes_per_second:ok\)\[15m\]/\1[2m]/g' \
    -e 's/^\(    interval: \)[15]m$/\15s/' \
    -e '/alert: RxeProbe\(Bandwidth\|Latency\|LatencyP99\)Regression/,/labels:/ s/for: 15m /for: 20s /' \
    -e 's/< 0\.8,  # param: bandwidth_regression_fraction/< 0.5,  # param: bandwidth_regression_fraction (lab)/' \
    "$f" >"$R/$(basename "$f")"
done
# The rewrite must have hit every window it is meant to shorten (a renamed window would leave a
# day-long baseline and the alert could never fire here).
! grep -nE '\[1[dw]\]|offset 1h|:ok\[15m\]|interval: [15]m$' "$R"/*.yml || lab_fail "rule windows not all shortened"
(($(grep -c 'for: 20s ' "$R/rxe_exporter.alerts.yml") == 3)) || lab_fail "regression alerts' for: not shortened"
(($(grep -c 'bandwidth_regression_fraction (lab)' "$R/rxe_exporter.alerts.yml") == 2)) ||
  lab_fail "bandwidth regression fraction not lowered"
promtool check rules "$R"/*.yml >"$W/promtool.log" 2>&1 || lab_fail "shortened rules: $(cat "$W/promtool.log")"
lab_log "rules copied, windows shortened: $(cat "$DASH"/rules/*.yml | diff - <(cat "$R"/*.yml) | grep -c '^>') lines changed"
{
  # Scrapes of a busy TCG VM's exporter were seen to take up to 6 s: 10 s interval and timeout.
  echo "global: {scrape_interval: 10s, scrape_timeout: 10s, evaluation_interval: 5s}"
  echo "rule_files: ['$R/*.yml']"
  echo "scrape_configs:"
  echo "  - job_name: rxe_exporter"
  echo "    static_configs:"
  for i in "${!IPS[@]}"; do
    echo "      - {targets: ['${IPS[$i]}:19791'], labels: {instance: host$i}}"
  done
} >"$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path=/run/prometheus-e2e \
  --web.listen-address=127.0.0.1:9090 >"$W/prometheus.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 600); do curl -fs "$PROM/-/ready" >/dev/null 2>&1 && break; lab_sleep 0.2; done
curl -fs "$PROM/-/ready" >/dev/null || lab_fail "prometheus not ready: $(tail -5 "$W/prometheus.log")"
T0=$(date +%s)
lab_log "prometheus ready; $HEALTHY_SECONDS s of healthy history"
left=$((T0 + HEALTHY_SECONDS - $(date +%s)))
((left <= 0)) || lab_sleep "$left"

# 1. The healthy mesh.
# Every target answered its scrapes: at most one failed scrape each over the healthy phase (at 6x
# vCPU overcommit one scrape of ~13 was seen to end in EOF), and none failing now.
down=$(q "sum by (instance) (count_over_time(up[$(($(date +%s) - T0))s]) - sum_over_time(up[$(($(date +%s) - T0))s])) > 0" |
  jq -r '.data.result[] | "\(.metric.instance) \(.value[1])"' | tr '\n' ';')
[[ -z $down ]] || lab_log "failed scrapes during the healthy phase (instance count): $down"
bad=$(curl -fs "$PROM/api/v1/targets" | jq -r '.data.activeTargets[] | select(.health != "up") | "\(.labels.instance): \(.lastError)"')
if [[ -n $bad ]]; then
  lab_sleep 12 # one more scrape
  bad=$(curl -fs "$PROM/api/v1/targets" | jq -r '.data.activeTargets[] | select(.health != "up") | "\(.labels.instance): \(.lastError)"')
fi
[[ -z $bad ]] || problem "targets not up (two scrapes in a row): $bad"
! awk -v RS=';' 'NF == 2 && $2 > 1 {found = 1} END {exit !found}' <<<"$down" || problem "more than one failed scrape of a target: $down"
rules=$(curl -fs "$PROM/api/v1/rules")
bad=$(jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.health) \(.lastError // "")"' <<<"$rules")
[[ -z $bad ]] || problem "rules not healthy: $bad"
lab_log "targets up: $(q 'sum(up)' | jq -r '.data.result[0].value[1]') of 3; $(jq '.data.groups | length' <<<"$rules") rule groups," \
  "$(jq '[.data.groups[].rules[]] | length' <<<"$rules") rules, $(jq '[.data.groups[].rules[] | select(.health == "ok")] | length' <<<"$rules") healthy"
ok_pairs=" $(pairs 'rxe_probe_last_success_timestamp_seconds{peer!="ghost"} > 0' | tr '\n' ' ')"
for i in 0 1 2; do
  for j in 0 1 2; do
    ((i == j)) || [[ $ok_pairs == *" host$i>host$j "* ]] || problem "pair host$i>host$j never succeeded"
  done
done
[[ $(pairs 'increase(rxe_probe_failures_total{peer="ghost",reason="connect_refused"}[1m]) > 0') == "host0>ghost" ]] ||
  problem "the ghost peer's probes do not fail with connect_refused"
# The ghost's UD address can never be fetched: its ping slots count as unresolved, which the loss
# rule counts as lost (a peer down since the start must not look like "no data").
ghost_loss=$(q 'pair:rxe_ud_ping_loss:ratio5m{peer="ghost"}' | jq -r '[.data.result[] | "\(.metric.instance)>ghost \(.value[1])"] | join(";")')
lab_log "ud_ping loss ratio (5m): ${ghost_loss:-none}; healthy pairs: $(table 'pair:rxe_ud_ping_loss:ratio5m{peer!="ghost"}' 1 '')"
[[ $ghost_loss == "host0>ghost 1" ]] || problem "ud_ping loss of the never-fetched ghost is '${ghost_loss:-none}', not 'host0>ghost 1'"
lab_log "send_lat median, current (1m) before: $(table 'pair:rxe_probe_latency_median_seconds:median15m{module="send_lat"}' 1000 ms)"
lab_log "send_lat median, baseline (3m offset 1m): $(table 'pair:rxe_probe_latency_median_seconds:median1d{module="send_lat"}' 1000 ms)"
lab_log "write_bw, current (2m) / baseline: $(table 'pair:rxe_probe_bandwidth_bytes_per_second:median15m' 1e-6 MB/s)" \
  "/ $(table 'pair:rxe_probe_bandwidth_bytes_per_second:median1d' 1e-6 MB/s)"
[[ $(pairs 'pair:rxe_probe_latency_median_seconds:median1d{module="send_lat"}' | wc -l) == 6 ]] ||
  problem "no latency baseline for every mesh pair"
healthy=$(alert_states "$T0")
failures=$(q "sum by (instance, peer, module, reason) (increase(rxe_probe_failures_total{peer!=\"ghost\"}[$(($(date +%s) - T0))s])) > 0" |
  jq -r '.data.result[] | "\(.metric.instance)>\(.metric.peer) \(.metric.module) \(.metric.reason) \(.value[1] | tonumber | round)"' | tr '\n' ';')
lab_log "mesh probe failures so far: ${failures:-none}"
lab_log "alerts pending/firing during the healthy phase:"
while read -r name pair module state; do
  [[ -n $name ]] || continue
  lab_log "  $name $pair $module $state $([[ $name == *Regression ]] || why "$state" "$name" "$pair")"
  if [[ $name == *Regression ]]; then
    problem "$name $state for $pair $module on the healthy mesh"
  elif [[ $state == firing && $pair != host0\>ghost ]]; then
    problem "$name firing for $pair $module on the healthy mesh"
  fi
done <<<"$healthy"

# 2. Latency regression on host1 -> host2 only.
lab_signal apply-netem
lab_wait_signal netem-applied 60 || lab_fail "host1 did not apply netem"
T1=$(date +%s)
fired=""
while (($(date +%s) < T1 + FIRE_TIMEOUT)); do
  lab_sleep 5
  now=$(q 'ALERTS{alertname=~"RxeProbe.*Regression"}' |
    jq -r '.data.result[].metric | "\(.alertname) \(.instance)>\(.peer) \(.module) \(.alertstate)"' | sort -u)
  [[ -z $now ]] || lab_log "+$(($(date +%s) - T1)) s: $(tr '\n' ';' <<<"$now")"
  # Fired at any time since the delay (the two pairs need not fire at the same evaluation).
  fired=$(alert_states "$T1" | awk '$1 == "RxeProbeLatencyRegression" && $4 == "firing" {print $2}' | sort -u | tr '\n' ' ')
  [[ $fired == "host1>host2 host2>host1 " ]] && break
done
T2=$(date +%s)
lab_log "send_lat median, current (1m) after: $(table 'pair:rxe_probe_latency_median_seconds:median15m{module="send_lat"}' 1000 ms)"
lab_log "send_lat median, baseline: $(table 'pair:rxe_probe_latency_median_seconds:median1d{module="send_lat"}' 1000 ms)"
lab_log "write_bw, current (2m) / baseline: $(table 'pair:rxe_probe_bandwidth_bytes_per_second:median15m' 1e-6 MB/s)" \
  "/ $(table 'pair:rxe_probe_bandwidth_bytes_per_second:median1d' 1e-6 MB/s)"
if [[ $fired == "host1>host2 host2>host1 " ]]; then
  lab_log "RxeProbeLatencyRegression had fired for $fired(all by $((T2 - T1)) s after the delay)"
else
  problem "RxeProbeLatencyRegression did not fire for host1>host2 and host2>host1 within $FIRE_TIMEOUT s (firing: ${fired:-none})"
fi

# 3. Every panel, variable and rule against this Prometheus.
if python3 "$DASH/tools/check_dashboards.py" --prometheus "$PROM" --scrape-interval 10s --interval 10s --range 5m \
  --rules "$R/*.yml" --strict-empty --require-rule-data -v \
  --allow-empty 'Targets unreachable from many sources (5m)=no peer is unreachable on the healthy mesh' \
  --allow-empty-rule 'peer:rxe_ud_ping_sources_unreachable:count5m=no peer is unreachable on the healthy mesh' \
  >"$W/check_dashboards.log" 2>&1; then
  grep -E '^  empty|^check_dashboards' "$W/check_dashboards.log" | while read -r line; do lab_log "$line"; done
else
  grep -E '^FAIL|^Dead|^  [^0-9 ]|^check_dashboards' "$W/check_dashboards.log" | head -30 >&2
  problem "dashboard/rule queries without data (see $W/check_dashboards.log)"
fi

# The whole run, from the ALERTS history: regression alerts only for the delayed pairs. (No
# `why` here: the healthy phase's list explained the others, and each costs queries: on a busy
# host this list took a minute with them.)
all=$(alert_states "$T0")
lab_log "alerts pending/firing at any time during the run:"
while read -r name pair module state; do
  [[ -n $name ]] || continue
  lab_log "  $name $pair $module $state"
  [[ $name != *Regression || " $AFFECTED " == *" $pair "* ]] || problem "$name $state for undelayed pair $pair $module"
done <<<"$all"
dump
lab_signal e2e-done
((${#PROBLEMS[@]} == 0)) || lab_fail "${#PROBLEMS[@]} problem(s): $(printf '%s; ' "${PROBLEMS[@]}")"
lab_log "PASS"
