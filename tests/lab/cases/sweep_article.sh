#!/usr/bin/env bash
# lab: vms=1 timeout=880
# `rxe_exporter sweep --preset article` end to end on one VM: the daemon (responder) runs in
# the background and the sweep targets this host's own RoCE address (rxe loopback; across two
# TCG VMs write_bw only reaches ~0.03 Gb/s, too slow for the preset). Checks: exit 0, every
# output file (6 x CSV/JSON/SVG + summary.json), every SVG is well-formed XML, the study's
# trends hold (64 B << 64 KiB; MTU 1024 < MTU 4096, or within 20 % on a loaded host), and Ctrl-C during a second sweep exits
# 130 keeping the finished points in the files ("complete": false).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
PEER=$LAB_IP
DAEMON=""

start_responder() {
  local cfg=$LAB_OUT/responder.yml
  printf 'responder:\n  enabled: true\n  listen_addresses: [":19792"]\n  allowed_cidrs: ["10.77.0.0/24"]\n' >"$cfg"
  "$BIN" --config.file "$cfg" --web.listen-address=:19791 >"$LAB_OUT/daemon.log" 2>&1 &
  DAEMON=$!
  lab_wait_listen 19792 60 || lab_fail "responder did not listen: $(cat "$LAB_OUT/daemon.log")"
}

stop_responder() {
  [[ -n $DAEMON ]] || return 0
  kill -TERM "$DAEMON"
  lab_bg_wait "$DAEMON" 30 || lab_fail "daemon did not stop"
  DAEMON=""
}

# median SWEEP VALUE: the median of point VALUE in $LAB_OUT/sweep/SWEEP.json.
median() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next(p["median"] for p in d["points"] if p["value"]==sys.argv[2]))' "$LAB_OUT/sweep/$1.json" "$2"
}

sweeper() {
  local out=$LAB_OUT/sweep rc=0 f pid
  start_responder
  # --timeout 45s (default 15s on top of the duration): a 1 MiB point drains tx_depth 128 x 1 MiB
  # after its second; at the ~7 MB/s of a starved lab host that took over 15 s (0/3 in a
  # clean-clone run at 6x vCPU overcommit).
  timeout 780 "$BIN" sweep --peer "$PEER" --preset article --repeat 3 --duration 1s --timeout 45s \
    --output-dir "$out" >"$LAB_OUT/sweep.stdout" 2>"$LAB_OUT/sweep.stderr" || rc=$?
  cat "$LAB_OUT/sweep.stdout"
  ((rc == 0)) || lab_fail "sweep exited $rc: $(tail -20 "$LAB_OUT/sweep.stderr")"
  grep -q '^\[1/81\] 01-size: size=64B repeat 1/3 \.\.\. ' "$LAB_OUT/sweep.stderr" ||
    lab_fail "no progress lines: $(head -3 "$LAB_OUT/sweep.stderr")"
  for f in 01-size 02-mtu 03-qps 04-post_list 05-cq_mod 06-cpu; do
    for ext in csv json svg; do [[ -s $out/$f.$ext ]] || lab_fail "missing $out/$f.$ext"; done
    python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$out/$f.svg" ||
      lab_fail "$f.svg is not well-formed XML"
  done
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["sweeps"])==6 and not d["interrupted"]' \
    "$out/summary.json" || lab_fail "bad summary.json"
  local s64 s64k m1024 m4096
  s64=$(median 01-size 64B) s64k=$(median 01-size 64KiB)
  m1024=$(median 02-mtu 1024) m4096=$(median 02-mtu 4096)
  lab_log "64B $s64 Gb/s, 64KiB $s64k Gb/s; MTU 1024 $m1024 Gb/s, MTU 4096 $m4096 Gb/s"
  python3 -c 'import sys; a,b=map(float,sys.argv[1:3]); sys.exit(0 if a*5 < b else 1)' "$s64" "$s64k" ||
    lab_fail "trend: 64B ($s64) is not << 64KiB ($s64k)"
  # A loaded TCG host makes single probes noisy (spreads of 5x are common): if the preset's
  # medians of 3 do not show the MTU trend, confirm with a focused sweep of 5 longer repeats.
  if ! python3 -c 'import sys; a,b=map(float,sys.argv[1:3]); sys.exit(0 if a < b else 1)' "$m1024" "$m4096"; then
    lab_log "MTU trend not visible in the preset; confirming with --vary mtu=1024,4096 --repeat 5"
    timeout 300 "$BIN" sweep --peer "$PEER" --vary mtu=1024,4096 --repeat 5 --duration 2s \
      --output-dir "$LAB_OUT/mtu-confirm" 2>/dev/null || lab_fail "confirmation sweep failed"
    m1024=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][0]["median"])' "$LAB_OUT/mtu-confirm/mtu.json")
    m4096=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][1]["median"])' "$LAB_OUT/mtu-confirm/mtu.json")
    # On a host loaded by other work the two can come out equal (0.386 vs 0.380 Gb/s after 5
    # repeats, while a quieter run showed 0.36 vs 0.67): the MTU effect then drowns in the
    # host's CPU scheduling, which is not a sweep bug. What must not happen is MTU 4096 being
    # clearly slower (the MTU applied the wrong way round, or not at all with a worse default).
    if ! python3 -c 'import sys; a,b=map(float,sys.argv[1:3]); sys.exit(0 if a < b else 1)' "$m1024" "$m4096"; then
      python3 -c 'import sys; a,b=map(float,sys.argv[1:3]); sys.exit(0 if b >= 0.8 * a else 1)' "$m1024" "$m4096" ||
        lab_fail "trend: MTU 4096 ($m4096) is clearly below MTU 1024 ($m1024)"
      lab_log "MTU trend not visible on this host (MTU 1024 $m1024, MTU 4096 $m4096 Gb/s): within 20 %, reported only"
    fi
  fi

  # Ctrl-C after the first point finished: exit 130, finished points kept.
  "$BIN" sweep --peer "$PEER" --vary size=64,4KiB,64KiB --repeat 2 --duration 1s \
    --output-dir "$LAB_OUT/cut" >"$LAB_OUT/cut.stdout" 2>"$LAB_OUT/cut.stderr" &
  pid=$!
  # Interrupt while point 3 runs: wait for it by a deadline, not a count of polls.
  local end=$((SECONDS + 240))
  until grep -q '^\[3/6\]' "$LAB_OUT/cut.stderr" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || lab_fail "the sweep to interrupt ended before point 3: $(tail -n 3 "$LAB_OUT/cut.stderr")"
    ((SECONDS < end)) || lab_fail "the sweep to interrupt did not reach point 3 in 240 s"
    lab_sleep 0.1
  done
  kill -INT "$pid"
  rc=0
  lab_bg_wait "$pid" 30 || rc=$?
  ((rc == 130)) || lab_fail "interrupted sweep exited $rc, want 130: $(cat "$LAB_OUT/cut.stderr")"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["complete"] and len(d["points"])>=1, d' \
    "$LAB_OUT/cut/size.json" || lab_fail "interrupted outputs: $(cat "$LAB_OUT/cut/size.json")"
  grep -q 'interrupted' "$LAB_OUT/cut.stdout" || lab_fail "table does not say interrupted"
  stop_responder
  lab_log "PASS"
}

[[ -x $BIN ]] || lab_fail "no $BIN (build the rxe_exporter target)"
trap 'rc=$?; [[ -z $DAEMON ]] || kill -KILL "$DAEMON" 2>/dev/null; ((rc == 0)) || lab_abort "exit $rc"' EXIT
sweeper
