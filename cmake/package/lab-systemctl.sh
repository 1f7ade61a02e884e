#!/usr/bin/env bash
# A stand-in for systemctl in the lab VM, which has no systemd as PID 1: the package's maintainer
# scripts (dh_installsystemd's blocks, deb-systemd-invoke) call `systemctl start|restart|stop
# rxe_exporter.service`; this starts and stops what the installed unit starts, as systemd would:
# the unit's ExecStart= with $ARGS from its EnvironmentFile=, as an unprivileged user (the unit
# has DynamicUser=yes), stopped with SIGTERM (TimeoutStopSec=20s, then SIGKILL). Offline verbs
# (--root=, preset, is-enabled, --version) go to the real systemctl. Every call is logged.
# Installed as /usr/local/sbin/systemctl by cmake/package/lifecycle.sh; state in /run/lab-systemd/.
set -euo pipefail
REAL=/usr/bin/systemctl
STATE=/run/lab-systemd
mkdir -p "$STATE"
echo "systemctl $*" >>"$STATE/calls.log"

verb="" unit="" root=0
for a in "$@"; do
  case $a in
    --root=*) root=1 ;;
    --version) verb=--version ;;
    -*) ;;
    *) if [[ -z $verb ]]; then verb=$a; elif [[ -z $unit ]]; then unit=$a; fi ;;
  esac
done
((root == 0)) || exec "$REAL" "$@"

pidfile=$STATE/${unit%.service}.pid
running() { [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

start() {
  local file=/lib/systemd/system/$unit exec_start env_file ARGS=""
  [[ -f $file ]] || { echo "lab-systemctl: no unit $unit" >&2; return 5; }
  running && return 0
  exec_start=$(sed -n 's/^ExecStart=//p' "$file")
  env_file=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$file")
  # shellcheck disable=SC1090 # the unit's EnvironmentFile (ARGS=...)
  [[ -z $env_file || ! -f $env_file ]] || . "$env_file"
  exec_start=${exec_start//\$ARGS/$ARGS}
  echo "lab-systemctl: start $unit: $exec_start" >>"$STATE/calls.log"
  # shellcheck disable=SC2086 # systemd splits ExecStart= on whitespace
  setsid setpriv --reuid=nobody --regid=nogroup --clear-groups $exec_start \
    </dev/null >>"$STATE/${unit%.service}.log" 2>&1 &
  echo $! >"$pidfile"
}

stop() {
  local pid i
  running || { rm -f "$pidfile"; return 0; }
  pid=$(cat "$pidfile")
  kill -TERM "$pid"
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  echo "lab-systemctl: stopped $unit (pid $pid)" >>"$STATE/calls.log"
  rm -f "$pidfile"
}

case $verb in
  --version | preset | is-enabled) exec "$REAL" --root=/ "$@" ;;
  daemon-reload | reset-failed | list-units) exit 0 ;;
  is-active) running ;;
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  try-restart) if running; then stop; start; fi ;;
  *) echo "lab-systemctl: unsupported: $*" >&2; exit 1 ;;
esac
