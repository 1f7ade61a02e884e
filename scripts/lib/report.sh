# shellcheck shell=bash
# The run-and-report loop shared by scripts/sanitize.sh and scripts/fuzz.sh (sourced):
#   report_init PREFIX            start a report ("PREFIX: ..." lines)
#   report_run NAME LOG CMD...    run CMD with its output in LOG; print "NAME passed (N s)" and,
#                                 when the caller defines report_detail NAME LOG, its words; on
#                                 failure "NAME FAILED" and the end of LOG
#   report_end                    print the summary; fails when any run failed
report_init() {
  report_prefix=$1
  report_start=$SECONDS
  report_passed=0
  report_failed=()
}

report_run() {
  local name=$1 log=$2 t0=$SECONDS detail=
  shift 2
  if "$@" >"$log" 2>&1; then
    report_passed=$((report_passed + 1))
    if declare -F report_detail >/dev/null; then detail=": $(report_detail "$name" "$log")"; fi
    echo "$report_prefix: $name passed ($((SECONDS - t0)) s)$detail"
  else
    echo "$report_prefix: $name FAILED ($((SECONDS - t0)) s); the end of $log:"
    tail -n 60 "$log"
    report_failed+=("$name")
  fi
}

report_end() {
  echo "$report_prefix: $report_passed passed, ${#report_failed[@]} failed" \
    "($((SECONDS - report_start)) s)${report_failed[*]:+: ${report_failed[*]}}"
  ((${#report_failed[@]} == 0))
}
