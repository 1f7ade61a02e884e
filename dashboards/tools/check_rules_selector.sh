#!/usr/bin/env bash
# The generator's --selector reaches the alerts: rules generated for a scrape job named
# "rdma_hosts" fire RxeExporterDown for a down target of that job (promtool test rules), and the
# default rules stay quiet for it (the silent failure of a hard-coded job="rxe_exporter").
# Usage: check_rules_selector.sh PROMTOOL PYTHON3
set -euo pipefail
PROMTOOL=${1:-promtool} PYTHON=${2:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/rxe-rules-selector.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" "$HERE/generate_rules.py" --selector 'job="rdma_hosts"' \
  --runbook-url https://wiki.example.org/rxe/runbook.md --out "$WORK/custom" >/dev/null
"$PYTHON" "$HERE/generate_rules.py" --out "$WORK/default" >/dev/null
cp "$HERE/../rules/rxe_exporter.rules.yml" "$WORK/custom/"
cp "$HERE/../rules/rxe_exporter.rules.yml" "$WORK/default/"
grep -q 'runbook_url: https://wiki.example.org/rxe/runbook.md#rxeexporterdown$' "$WORK/custom/rxe_exporter.alerts.yml" ||
  { echo "FAIL: --runbook-url not applied"; exit 1; }
groups=$(sed -n 's/^  - name: //p' "$WORK/custom/"*.yml | sed 's/^/  - /')
# $1: rule dir, $2: the expected RxeExporterDown alerts
write_test() {
  cat <<T
rule_files: [$1/rxe_exporter.alerts.yml, $1/rxe_exporter.rules.yml]
evaluation_interval: 1m
group_eval_order:
$groups
tests:
  - interval: 1m
    input_series:
      - series: 'up{job="rdma_hosts",instance="a:19791"}'
        values: '0x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: RxeExporterDown
        exp_alerts:$2
T
}
write_test "$WORK/custom" '
          - exp_labels: {severity: warning, job: rdma_hosts, instance: "a:19791"}
            exp_annotations:
              summary: rxe_exporter target is down.
              description: "Prometheus has failed to scrape a:19791 (job rdma_hosts) for 5 minutes: RDMA counters and probe results of this host are not collected."
              runbook_url: https://wiki.example.org/rxe/runbook.md#rxeexporterdown' >"$WORK/custom_test.yml"
write_test "$WORK/default" ' []' >"$WORK/default_test.yml"
status=0
for t in custom default; do
  echo "+ promtool test rules ($t rules, a down target in job rdma_hosts)"
  "$PROMTOOL" test rules "$WORK/${t}_test.yml" || status=1
done
exit $status
