# shellcheck shell=bash
# The run-and-report loop shared by scripts/sanitize.sh and scripts/fuzz.sh (sourced):
#   report_init PREFIX [JOBS]     start a report ("PREFIX: ..." lines); JOBS runs at once
#                                 (default 1; their lines are printed in order at report_end)
#   report_run NAME LOG CMD...    run CMD with its output in LOG; print "NAME passed (N s)" and,
#                                 when the caller defines report_detail NAME LOG, its words; on
#                                 failure "NAME FAILED" and the end of LOG
#   report_end                    print the summary; fails when any run failed
report_init() {
  report_prefix=$1
  report_jobs=${2:-1}
  report_start=$SECONDS
  report_logs=()
}

# One run: its report line(s) on stdout, its verdict in LOG.verdict.
report_one() {
  local name=$1 log=$2 t0=$SECONDS detail=
  shift 2
  if "$@" >"$log" 2>&1; then
    if declare -F report_detail >/dev/null; then detail=": $(report_detail "$name" "$log")"; fi
    echo "$report_prefix: $name passed ($((SECONDS - t0)) s)$detail"
    echo passed >"$log.verdict"
  else
    echo "$report_prefix: $name FAILED ($((SECONDS - t0)) s); the end of $log:"
    tail -n 60 "$log"
    echo failed >"$log.verdict"
  fi
}

report_run() {
  report_logs+=("$2")
  rm -f "$2.verdict" "$2.report"
  if ((report_jobs <= 1)); then
    report_one "$@"
    return
  fi
  while (($(jobs -rp | wc -l) >= report_jobs)); do wait -n || true; done
  report_one "$@" >"$2.report" &
}

report_end() {
  wait
  local log passed=0 failed=()
  for log in "${report_logs[@]}"; do
    [[ -f $log.report ]] && cat "$log.report"
    if [[ $(cat "$log.verdict" 2>/dev/null) == passed ]]; then
      passed=$((passed + 1))
    else
      failed+=("$(basename "$log" .log)")
    fi
  done
  echo "$report_prefix: $passed passed, ${#failed[@]} failed ($((SECONDS - report_start)) s)${failed[*]:+: ${failed[*]}}"
  ((${#failed[@]} == 0))
}
