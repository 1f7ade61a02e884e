#!/usr/bin/env bash
# lab: vms=2 timeout=420
# Peer discovery from a Prometheus file_sd file (JSON) on real rxe (issue 15): both VMs run
# probe_service_once with prober.self = their own address and a send_lat module with
# subset {group_label: rack, per_other_group: 1}. The file puts both VMs in rack r0 and three
# addresses where nothing answers in rack r1. Each VM must probe the other VM (its rack mate,
# successfully), exactly one of the three rack-r1 addresses (the sample), and never itself.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

T=$LAB_BUILD/tests/probe_service_once
RUN_SECONDS=40

main() {
  [[ -x $T ]] || lab_fail "no $T (build the probe_service_once target)"
  local dir=$LAB_OUT/vm$LAB_INDEX other=10.77.0.$((11 - LAB_INDEX))
  mkdir -p "$dir"
  cat >"$dir/hosts.json" <<JSON
[
  {"targets": ["10.77.0.10", "10.77.0.11"], "labels": {"rack": "r0", "__meta_from": "lab"}},
  {"targets": ["10.77.0.97", "10.77.0.98", "10.77.0.99"], "labels": {"rack": "r1"}}
]
JSON
  cat >"$dir/rxe.yml" <<YAML
responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}
prober: {max_concurrent: 2, history_per_pair: 5, self: {name: "$LAB_IP"}}
peer_files: [hosts.json]
modules:
  lat:
    type: send_lat
    interval: 8s
    timeout: 4s
    iterations: 50
    subset: {group_label: rack, per_other_group: 1}
YAML
  local log=$dir/service.log json=$dir/debug.json metrics=$dir/metrics.txt stopfile=$dir/stop pid
  lab_barrier start 120
  timeout $((RUN_SECONDS + 120)) "$T" --config "$dir/rxe.yml" --seconds "$RUN_SECONDS" \
    --json "$json" --metrics "$metrics" --stop-file "$stopfile" >"$dir/stdout.txt" 2>"$log" &
  pid=$!
  lab_wait_file "$metrics" $((RUN_SECONDS + 60)) || lab_fail "no metrics: $(tail -n 20 "$log")"
  lab_barrier collected 120
  touch "$stopfile"
  lab_bg_wait "$pid" 30 || lab_fail "probe_service_once failed: $(tail -n 20 "$log")"

  local peers
  peers=$(grep -o '"peer":"[^"]*"' "$json" | sort -u | tr '\n' ' ')
  lab_log "pairs of module lat: $peers"
  grep -q "\"peer\":\"$LAB_IP\"" "$json" && lab_fail "probed itself ($LAB_IP is prober.self)"
  grep -q "\"peer\":\"$other\"" "$json" || lab_fail "its rack mate $other is not probed"
  local sampled
  sampled=$(grep -o '"peer":"10\.77\.0\.9[789]"' "$json" | sort -u | wc -l)
  ((sampled == 1)) || lab_fail "$sampled of rack r1's 3 peers probed, want 1 (per_other_group)"
  local l="module=\"lat\",peer=\"$other\",rack=\"r0\""
  grep -q "^rxe_probe_last_success_timestamp_seconds{$l} [1-9]" "$metrics" ||
    lab_fail "no successful probe of $other: $(grep "{$l" "$metrics" | head -n 5)"
  lab_log "latency median to $other: $(awk -v s="rxe_probe_latency_median_seconds{$l}" '$1 == s {print $2}' "$metrics") s"
  lab_barrier all-done 120
  lab_log PASS
}

main "$@"
