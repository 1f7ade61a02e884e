#!/usr/bin/env bash
# Helpers for lab cases that run the daemon and read its probe metrics. Source it after lib.sh:
#   . "$(dirname "$0")/../probe_lib.sh"
# The case sets PROM (the file scrapes go to), DAEMON (the daemon pid) and, if not 19791,
# PLIB_PORT (its web port).
# Every wait polls a condition with a deadline.

# plib_scrape: this VM's /metrics into $PROM (atomically; 1 on failure).
plib_scrape() {
  curl -sf --max-time 20 "http://127.0.0.1:${PLIB_PORT:-19791}/metrics" >"$PROM.tmp" && mv -f "$PROM.tmp" "$PROM"
}
# plib_val SERIES: the value of an exact series (name{labels}) in $PROM.
plib_val() { awk -v s="$1" '$1 == s {print $2; exit}' "$PROM"; }
# plib_failures MODULE PEER: "reason=count ..." of the pair's non-zero failure counters.
plib_failures() {
  awk -v p="rxe_probe_failures_total{module=\"$1\",peer=\"$2\",reason=\"" \
    'index($1, p) == 1 && $2 > 0 {r = substr($1, length(p) + 1); sub(/"}$/, "", r); printf "%s=%s ", r, $2}' "$PROM"
}
# plib_until DESC TIMEOUT CMD...: scrapes and runs CMD every 0.3 s until CMD succeeds; fails
# the case after TIMEOUT s or when $DAEMON died.
plib_until() {
  local desc=$1 t=$2 end=$((SECONDS + $2))
  shift 2
  until plib_scrape && "$@"; do
    kill -0 "$DAEMON" 2>/dev/null || lab_fail "the daemon died while waiting for: $desc"
    ((SECONDS < end)) || lab_fail "$desc: not within $t s"
    lab_sleep 0.3
  done
}
# plib_fds PID / plib_threads PID: open fds / threads of a process.
plib_fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
plib_threads() { awk '$1 == "Threads:" {print $2}' "/proc/$1/status"; }
# plib_settled PID FDS THREADS: waits (30 s) until PID has FDS fds and THREADS threads
# (between two probes: transient sockets come and go); fails with the fd targets.
plib_settled() {
  local end=$((SECONDS + 30))
  until (($(plib_fds "$1") == $2 && $(plib_threads "$1") == $3)); do
    ((SECONDS < end)) || lab_fail "pid $1 has $(plib_fds "$1") fds, $(plib_threads "$1") threads, want $2, $3: $(
      find "/proc/$1/fd" -mindepth 1 -printf '%l\n' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' ')"
    lab_sleep 0.3
  done
}
# plib_on_exit: EXIT trap: stops $DAEMON (and $DAEMON2 if set), then lib.sh's abort logic.
plib_on_exit() {
  local rc=$?
  kill "${DAEMON:-}" "${DAEMON2:-}" 2>/dev/null || true
  wait 2>/dev/null || true
  lab__on_exit "$rc"
}
