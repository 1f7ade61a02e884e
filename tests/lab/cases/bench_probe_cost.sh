#!/usr/bin/env bash
# lab: vms=1 timeout=420
# What probing costs, on rxe loopback in one VM (tests/bench/README.md explains the numbers):
#  1. The real daemon with config/examples/self.yml, first without its modules (idle: responder
#     + collectors), then reloaded (SIGHUP) with all four modules (probing: every module every
#     10 s, both the prober and the responder side in this process): CPU % (utime+stime from
#     /proc/PID/stat) and RSS (VmRSS, VmHWM) over IDLE_S / PROBE_S seconds each, plus the CPU of
#     one /metrics scrape.
#  2. The same bytes moved by our write_bw (probe_once, 64 KiB, tx depth 128, client and
#     responder in one process) and by ib_write_bw (same size and tx depth, -n chosen to move
#     the same bytes), alternating, ROUNDS times: CPU seconds per GB as process CPU (every
#     process of the tool) and as whole-VM CPU (/proc/stat: on Soft-RoCE most of the work is
#     in the kernel, softirq included), and the ratio ours / perftest.
# Prints a table. Asserts only loose bounds: idle CPU < 5 %, idle RSS < 64 MiB, peak RSS
# < 256 MiB, and both CPU-per-GB ratios < 2.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
P=$LAB_BUILD/tests/probe_once
SELF=${LAB_SRC:?}/config/examples/self.yml
IDLE_S=20
PROBE_S=20
SCRAPES=5
BW_S=5           # our write_bw duration; perftest gets -n for the same bytes
ROUNDS=2
PORT=18700
HZ=$(getconf CLK_TCK)
MAX_IDLE_CPU_PCT=5
MAX_IDLE_RSS_KB=$((64 * 1024))
MAX_HWM_KB=$((256 * 1024))
MAX_RATIO=2

# ---------------------------------------------------------------- helpers
# vm_ticks: "busy total user system softirq" ticks of all CPUs from /proc/stat.
vm_ticks() {
  awk '$1 == "cpu" {t = 0; for (i = 2; i <= 9; i++) t += $i
    print t - $5 - $6, t, $2 + $3, $4, $8; exit}' /proc/stat
}
calc() { awk "BEGIN {printf \"%.${2:-3}f\", $1}"; }
scrape() { curl -sf --max-time 20 http://127.0.0.1:19791/metrics; }


# ---------------------------------------------------------------- 1. the daemon
# window NAME SECONDS: samples the daemon for SECONDS; appends a row to $DAEMON_ROWS.
window() {
  local name=$1 secs=$2 t0 t1 w0 w1 rss_max=0 rss i
  t0=$(lab_proc_ticks "$DAEMON")
  w0=$(date +%s%N)
  for ((i = 0; i < secs; i++)); do
    lab_sleep 1
    rss=$(lab_status_kb "$DAEMON" VmRSS)
    ((rss > rss_max)) && rss_max=$rss
  done
  t1=$(lab_proc_ticks "$DAEMON")
  w1=$(date +%s%N)
  local pct
  pct=$(calc "($t1 - $t0) / $HZ / (($w1 - $w0) / 1e9) * 100" 2)
  printf '%-9s %6s %9s %10s %11s %10s\n' "$name" "$secs" "$pct" "$(lab_status_kb "$DAEMON" VmRSS)" \
    "$rss_max" "$(lab_status_kb "$DAEMON" VmHWM)" >>"$DAEMON_ROWS"
  echo "$pct"
}

daemon_cost() {
  local cfg=$LAB_OUT/bench.yml idle_pct rss hwm t0 t1 ms
  DAEMON_ROWS=$LAB_OUT/daemon.rows
  : >"$DAEMON_ROWS"
  sed '/^modules:/,$d' "$SELF" >"$cfg"  # self.yml without its modules
  "$BIN" --config.file "$cfg" --web.listen-address=127.0.0.1:19791 >"$LAB_OUT/daemon.log" 2>&1 &
  DAEMON=$!
  lab_wait_listen 19791 60 || lab_fail "daemon did not listen: $(tail -n 5 "$LAB_OUT/daemon.log")"
  lab_wait_listen 19792 60 || lab_fail "responder did not listen"
  lab_sleep 2  # start-up done
  lab_log "daemon idle for $IDLE_S s"
  idle_pct=$(window idle "$IDLE_S")
  rss=$(lab_status_kb "$DAEMON" VmRSS)

  t0=$(lab_proc_ticks "$DAEMON")
  for ((i = 0; i < SCRAPES; i++)); do scrape >"$LAB_OUT/scrape.prom" || lab_fail "scrape failed"; done
  t1=$(lab_proc_ticks "$DAEMON")
  ms=$(calc "($t1 - $t0) * 1000 / $HZ / $SCRAPES" 1)

  cp "$SELF" "$cfg"
  kill -HUP "$DAEMON"
  lab_log "daemon probing (self.yml, all four modules) for $PROBE_S s"
  window probing "$PROBE_S" >/dev/null
  scrape >"$LAB_OUT/probing.prom" || lab_fail "scrape failed"
  hwm=$(lab_status_kb "$DAEMON" VmHWM)
  kill -TERM "$DAEMON"
  lab_bg_wait "$DAEMON" 30 || lab_fail "daemon did not stop"
  DAEMON=""
  local probes
  probes=$(awk '/^rxe_probes_total\{/ {s += $2} END {print s + 0}' "$LAB_OUT/probing.prom")
  grep -q '^rxe_exporter_config_last_reload_successful 1' "$LAB_OUT/probing.prom" ||
    lab_fail "the reload to self.yml failed: $(tail -n 5 "$LAB_OUT/daemon.log")"

  echo
  echo "daemon (rxe_exporter, config/examples/self.yml; CPU % of one CPU; RSS kB)"
  printf '%-9s %6s %9s %10s %11s %10s\n' phase secs 'cpu_%' VmRSS_end VmRSS_max VmHWM
  cat "$DAEMON_ROWS"
  echo "one /metrics scrape: $ms ms CPU (mean of $SCRAPES); probes completed while probing: $probes"
  echo
  ((probes >= 2)) || lab_fail "only $probes probes completed while probing"
  awk -v p="$idle_pct" -v m="$MAX_IDLE_CPU_PCT" 'BEGIN {exit !(p < m)}' ||
    lab_fail "idle CPU $idle_pct % >= $MAX_IDLE_CPU_PCT %"
  ((rss < MAX_IDLE_RSS_KB)) || lab_fail "idle RSS $rss kB >= $MAX_IDLE_RSS_KB kB"
  ((hwm < MAX_HWM_KB)) || lab_fail "peak RSS $hwm kB >= $MAX_HWM_KB kB"
}

# ---------------------------------------------------------------- 2. CPU per GB
# measure NAME CMD...: runs CMD (a function) and appends "NAME pkts proc_s vm_busy vm_total
# vm_user vm_sys vm_softirq wall_s tool_mib_s" to $BW_ROWS. CMD prints "CPU_SECONDS MIB_S" on
# fd 3: its processes' CPU and the bandwidth the tool itself reports.
measure() {
  local name=$1 p0 p1 w0 w1 proc cpu bw
  shift
  local -a v0 v1
  p0=$(lab_hw_counter sent_pkts)
  read -r -a v0 < <(vm_ticks)
  w0=$(date +%s%N)
  proc=$("$@" 3>&1 >>"$LAB_OUT/bw.log" 2>&1) || lab_fail "$name failed: $(tail -n 20 "$LAB_OUT/bw.log")"
  w1=$(date +%s%N)
  read -r -a v1 < <(vm_ticks)
  p1=$(lab_hw_counter sent_pkts)
  read -r cpu bw <<<"$proc"
  echo "$name $((p1 - p0)) $cpu $((v1[0] - v0[0])) $((v1[1] - v0[1])) $((v1[2] - v0[2])) $((v1[3] - v0[3])) $((v1[4] - v0[4])) $(calc "($w1 - $w0) / 1e9") $bw" >>"$BW_ROWS"
}

# timed OUT CMD...: runs CMD under /usr/bin/time; its user+sys seconds go to OUT.time.
timed() {
  local out=$1
  shift
  /usr/bin/time -f '%U %S' -o "$out.time" "$@" >"$out" 2>&1
}
cpu_of() { awk '{print $1 + $2}' "$1.time"; }

ours() {
  local out=$LAB_OUT/ours.$ROUND.txt
  timed "$out" "$P" --type write_bw --ip "$LAB_IP" -s 65536 -t 128 -D "$BW_S" || { cat "$out"; return 1; }
  cat "$out"
  echo "$(cpu_of "$out") $(sed -n 's/^RESULT .* bw_mib_s=\([0-9.]*\) .*/\1/p' "$out")" >&3
}

perftest() {
  local out=$LAB_OUT/perftest.$ROUND spid
  timed "$out.server.txt" ib_write_bw -d "$LAB_RDMA_DEV" -x "$GID" -p "$PORT" -F -s 65536 -t 128 -n "$ITERS" &
  spid=$!
  # Sleep first: polling with ss would add our own CPU to the whole-VM figure.
  lab_sleep 1
  lab_wait_listen "$PORT" 30 || { cat "$out.server.txt"; return 1; }
  timed "$out.client.txt" ib_write_bw -d "$LAB_RDMA_DEV" -x "$GID" -p "$PORT" -F -s 65536 -t 128 -n "$ITERS" "$LAB_IP" ||
    { cat "$out.client.txt"; return 1; }
  lab_bg_wait "$spid" 60 || { cat "$out.server.txt"; return 1; }
  cat "$out.client.txt"
  # perftest's "BW average[MB/sec]" is MiB/s.
  echo "$(awk '{s += $1 + $2} END {print s}' "$out.server.txt.time" "$out.client.txt.time")" \
    "$(awk 'f {print $4; exit} /#bytes/ {f = 1}' "$out.client.txt")" >&3
}

bw_cost() {
  local msgs
  GID=$(lab_gid_index) || lab_fail "no RoCE v2 GID for $LAB_IP"
  BW_ROWS=$LAB_OUT/bw.rows
  : >"$BW_ROWS"
  for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
    lab_log "round $ROUND: our write_bw for $BW_S s"
    measure "ours#$ROUND" ours
    # The probe's messages exclude its warm-up (min(D/10, 250 ms)); perftest gets the
    # messages of the whole run, so the packet counts below should be close.
    msgs=$(sed -n 's/^RESULT .* messages=\([0-9]*\) .*/\1/p' "$LAB_OUT/ours.$ROUND.txt")
    ITERS=$(awk -v m="$msgs" -v d="$BW_S" 'BEGIN {w = d / 10 < 0.25 ? d / 10 : 0.25
      printf "%d", m * d / (d - w)}')
    lab_log "round $ROUND: ib_write_bw -n $ITERS"
    measure "perftest#$ROUND" perftest
    PORT=$((PORT + 1))
  done
  # Bytes: sent_pkts (rxe counts every packet, data and ACK) scaled by perftest's known
  # bytes per packet (-n x 64 KiB over its sent_pkts), the same for both tools.
  local bpp
  bpp=$(awk -v n="$ITERS" '$1 == "perftest#'"$ROUNDS"'" {printf "%.1f", n * 65536 / $2}' "$BW_ROWS")
  echo
  echo "CPU per GB moved, write_bw 64 KiB, tx depth 128, rxe loopback (1 vCPU); bytes = sent_pkts x $bpp"
  awk -v hz="$HZ" -v bpp="$bpp" '
    BEGIN { printf "%-11s %7s %7s %10s %9s %11s %9s %11s %8s %8s %8s\n", "run", "MB", "wall_s",
              "tool_MiB/s", "proc_cpu", "proc_s/GB", "vm_cpu", "vm_s/GB", "vm_user", "vm_sys", "vm_sirq" }
    {
      gb = $2 * bpp / 1e9; vm = $4 / hz
      printf "%-11s %7.1f %7.2f %10.1f %9.2f %11.2f %9.2f %11.2f %8.2f %8.2f %8.2f\n", $1, gb * 1000,
             $9, $10, $3, $3 / gb, vm, vm / gb, $6 / hz, $7 / hz, $8 / hz
      tool = ($1 ~ /^ours/) ? "ours" : "perftest"
      G[tool] += gb; PC[tool] += $3; VC[tool] += vm
    }
    END {
      rp = (PC["ours"] / G["ours"]) / (PC["perftest"] / G["perftest"])
      rv = (VC["ours"] / G["ours"]) / (VC["perftest"] / G["perftest"])
      printf "ratio ours/perftest (all rounds): process CPU per GB %.2f, whole-VM CPU per GB %.2f\n", rp, rv
      printf "%.3f %.3f\n", rp, rv > "/dev/stderr"
    }' "$BW_ROWS" 2>"$LAB_OUT/ratios"
  local rp rv
  read -r rp rv <"$LAB_OUT/ratios"
  awk -v a="$rp" -v b="$rv" -v m="$MAX_RATIO" 'BEGIN {exit !(a < m && b < m)}' ||
    lab_fail "CPU per GB ratio ours/perftest: process $rp, whole VM $rv (want < $MAX_RATIO)"
}

main() {
  for f in "$BIN" "$P"; do [[ -x $f ]] || lab_fail "missing $f"; done
  DAEMON=""
  trap '[[ -z $DAEMON ]] || kill "$DAEMON" 2>/dev/null || true; [[ ${ok:-0} == 1 ]] || lab_abort' EXIT
  echo "VM: $(nproc) vCPU, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB, kernel $(uname -r), CLK_TCK $HZ"
  daemon_cost
  bw_cost
  ok=1
  lab_log PASS
}

main "$@"
