#!/usr/bin/env bash
# lab: vms=1 timeout=1800 mem=1024
# ud_ping scale benchmark (issue 15): what the daemon costs with one ud_ping module at a 10 s
# interval and N = 10, 100, 1000 peers, with per-peer series and with `aggregate_by: rack`.
# Not a ctest case (tests/lab/cases/ only): run it through the lab lock,
#   /tmp/lab-lock.sh tests/lab/run-case.sh tests/bench/ud_mesh_scale.sh build
# and read the table at the end of its output (tests/bench/README.md explains the numbers).
# Arguments (lab.sh passes no environment to the VM, run it through lab.sh to give them):
#   ud_mesh_scale.sh [PEER_COUNTS [profile]]
#   /tmp/lab-lock.sh tests/lab/lab.sh --vms 1 --timeout 1800 --out build/lab-out/ud_mesh_scale \
#     -- tests/bench/ud_mesh_scale.sh 1000 profile
# PEER_COUNTS: comma-separated (default 10,100,1000); the baseline row always runs. `profile`
# adds, after each row's measurements (never inside its window), a syscall count per ping
# (strace -c -f, 20 s) and a CPU profile by symbol (perf record -e cpu-clock -g, 20 s).
#
# One VM, real rdma_rxe, loopback: every peer entry points at this VM's own responder
# (10.77.0.10:19792) under a different name (peer0000 ...), so the daemon pings N "peers" and
# also answers all N pings itself. The sender's per-peer cost (address fetch and cache, one ping
# and one pong per interval, the pending-ping table, the per-pair series) is the same as with N
# hosts; the responder's share is that of a host in a full mesh of N+1 hosts (every host answers
# N pings per interval). Peers carry `rack: rNN`, 40 peers per rack (1, 3 and 25 racks).
#
# For every (N, per-peer | aggregate_by: rack), and once without any module (baseline):
#  1. start the daemon, wait until every peer has been pinged at least twice on average
#     (sum of rxe_ud_ping_sent_total >= 2 N: a full interval of steady state; a condition, not a
#     fixed sleep) and rxe_ud_ping_peers == N;
#  2. measure WINDOW_S (60) seconds: CPU % of one core (utime+stime from /proc/PID/stat, and
#     each alone: user = the daemon's own code, sys = its syscalls, which on loopback rxe include
#     the kernel's packet work for the ping and the pong), the busiest thread's share, RSS at the
#     end and its maximum (sampled every second), threads, open fds, pings/s and the loss ratio
#     of the window (from /metrics scraped just before and just after it: no scrape falls inside
#     the CPU window, the scrapes' own cost is step 3);
#  3. then SCRAPES (5) scrapes of /metrics: size, samples (all, and ud_ping's own series), wall
#     time per scrape (curl) and the daemon's CPU per scrape.
# Asserts only that the mesh works (pings/s within 20 % of N / 10 s, every peer pinged) so a
# broken wiring cannot print a cheap-looking table; the goals (<= 5 % of a core, <= 64 MiB RSS
# at 1,000 peers) are printed next to the numbers, not asserted (lab CPU is TCG).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lab/lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
PEER_COUNTS=${1:-10,100,1000}
PROFILE=${2:-}
[[ $PEER_COUNTS =~ ^[0-9]+(,[0-9]+)*$ ]] || lab_fail "PEER_COUNTS '$PEER_COUNTS': want e.g. 10,100,1000"
[[ -z $PROFILE || $PROFILE == profile ]] || lab_fail "second argument '$PROFILE': only 'profile'"
PROFILE_S=20
WINDOW_S=60
SCRAPES=5
RACK_SIZE=40
INTERVAL_S=10
WARMUP_TIMEOUT_S=600
HZ=$(getconf CLK_TCK)
ROWS=$LAB_OUT/ud_mesh_scale.rows
DAEMON=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  local rc=$1
  [[ -z $DAEMON ]] || kill "$DAEMON" 2>/dev/null || true
  lab__on_exit "$rc"
}
trap 'cleanup $?' EXIT

[[ -x $BIN ]] || lab_fail "no $BIN (build the rxe_exporter target)"

# The fields after the ")" of comm (which may hold spaces): utime is the 12th, stime the 13th.
proc_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
proc_user_sys() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12, $13}'; }
# thread_ticks PID: "TID utime+stime" per thread.
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    echo "${t##*/} $(sed 's/^.*) //' "$t/stat" | awk '{print $12 + $13}')"
  done
}
status_field() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
calc() { awk "BEGIN {printf \"%.${2:-2}f\", $1}"; }
scrape() { curl -sf --max-time 30 http://127.0.0.1:19791/metrics; }
# metric_sum FILE NAME: sum of every sample of NAME (any labels) in a scrape.
metric_sum() { awk -v n="$2" '$1 == n || index($1, n "{") == 1 {s += $NF} END {printf "%.0f", s}' "$1"; }

# profile N AGG: where the daemon's CPU goes (diagnosis, after the row's window): syscalls per
# ping (strace -c over all threads; strace slows the daemon, so only counts are read) and a
# cpu-clock profile by symbol, user and kernel (perf). Skipped with a note if a tool is missing.
profile() {
  local tag=$1-$2 p0 p1 pings out
  if command -v strace >/dev/null; then
    out=$LAB_OUT/strace-$tag.txt
    scrape >"$LAB_OUT/p0.prom" || lab_fail "scrape failed"
    strace -c -f -p "$DAEMON" -o "$out" &
    local st=$!
    sleep "$PROFILE_S"
    kill -INT "$st"
    wait "$st" || true
    scrape >"$LAB_OUT/p1.prom" || lab_fail "scrape failed"
    p0=$(metric_sum "$LAB_OUT/p0.prom" rxe_ud_ping_sent_total)
    p1=$(metric_sum "$LAB_OUT/p1.prom" rxe_ud_ping_sent_total)
    pings=$((p1 - p0))
    echo "== $tag: syscalls of all threads over ${PROFILE_S}s under strace: $pings pings (the 2 scrapes' calls included)"
    awk -v p="$pings" '$1 ~ /^[0-9.]+$/ && NF >= 5 {c = $4; name = $NF
        printf "  %-20s %8d calls  %6.2f per ping\n", name, c, p ? c / p : 0}' "$out" | sort -k2 -nr
  else
    echo "== $tag: no strace in the VM: no syscall count"
  fi
  if command -v perf >/dev/null; then
    out=$LAB_OUT/perf-$tag.data
    if perf record -q -e cpu-clock -F 499 -g -p "$DAEMON" -o "$out" -- sleep "$PROFILE_S" >/dev/null 2>&1; then
      echo "== $tag: perf cpu-clock over ${PROFILE_S}s: share of samples by dso, then by symbol (self)"
      # (awk, not head: under pipefail an early exit would kill perf with SIGPIPE)
      perf report -i "$out" --stdio --no-children --sort dso -g none 2>/dev/null | awk '/^ +[0-9]/ && n++ < 8'
      perf report -i "$out" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
        awk '/^ +[0-9]/ && n++ < 40 {print substr($0, 1, 150)}'
      echo "   (guest kernel: samples taken with interrupts off land where they are re-enabled, e.g."
      echo "    finish_task_switch = the context switches of wake-ups)"
    else
      echo "== $tag: perf record failed: no profile"
    fi
  else
    echo "== $tag: no perf in the VM: no profile"
  fi
}

# config N AGG: the daemon's configuration with N peers (all this VM's responder) and one
# ud_ping module; AGG = "rack" adds aggregate_by: rack. N = 0: no module (baseline).
config() {
  local n=$1 agg=$2 i
  echo 'devices: {include: "rxe.*"}'
  echo 'responder: {enabled: true, listen_addresses: [":19792"], allowed_cidrs: ["10.77.0.0/24"]}'
  ((n > 0)) || return 0
  echo 'peers:'
  for ((i = 0; i < n; i++)); do
    printf '  - {name: peer%04d, address: %s, port: 19792, labels: {rack: r%02d}}\n' "$i" "$LAB_IP" $((i / RACK_SIZE))
  done
  echo 'modules:'
  echo "  mesh: {type: ud_ping, interval: ${INTERVAL_S}s, timeout: 1s${agg:+, aggregate_by: $agg}}"
}

# run N AGG: one row of the table.
run() {
  local n=$1 agg=$2 name cfg t0 t1 w0 w1 i rss rss_max=0 sent0 sent1 lost0 lost1 got
  name="$n/${agg:-peer}"
  ((n > 0)) || name="0 (no module)"
  cfg=$LAB_OUT/mesh-$n-${agg:-peer}.yml
  config "$n" "$agg" >"$cfg"
  "$BIN" --config.file "$cfg" --web.listen-address=127.0.0.1:19791 >"$LAB_OUT/daemon-$n-${agg:-peer}.log" 2>&1 &
  DAEMON=$!
  lab_wait_listen 19791 60 || lab_fail "daemon did not listen: $(tail -n 5 "$LAB_OUT/daemon-$n-${agg:-peer}.log")"
  lab_wait_listen 19792 60 || lab_fail "responder did not listen"

  # 1. warm-up: every peer's address fetched and pinged twice on average.
  local deadline=$((SECONDS + WARMUP_TIMEOUT_S)) w=$LAB_OUT/warm.prom
  while ((n > 0)); do
    scrape >"$w" || lab_fail "scrape failed during warm-up"
    got=$(metric_sum "$w" rxe_ud_ping_sent_total)
    if ((got >= 2 * n)) && [[ $(metric_sum "$w" rxe_ud_ping_peers) == "$n" ]]; then break; fi
    ((SECONDS < deadline)) || lab_fail "$name: warm-up not done in ${WARMUP_TIMEOUT_S}s: $got pings sent," \
      "peers $(metric_sum "$w" rxe_ud_ping_peers), fetch errors" \
      "$(awk '/^rxe_ud_ping_address_fetches_total\{.*result="error"/ {s += $NF} END {print s + 0}' "$w")"
    sleep 2
  done
  lab_log "$name: warm ($SECONDS s since boot); measuring ${WINDOW_S}s"

  # 2. the window
  scrape >"$LAB_OUT/before.prom" || lab_fail "scrape failed"
  local u0 s0 u1 s1 th0 th1
  th0=$(thread_ticks "$DAEMON")
  read -r u0 s0 < <(proc_user_sys "$DAEMON")
  w0=$(date +%s%N)
  for ((i = 0; i < WINDOW_S; i++)); do
    sleep 1
    rss=$(status_field "$DAEMON" VmRSS)
    ((rss > rss_max)) && rss_max=$rss
  done
  read -r u1 s1 < <(proc_user_sys "$DAEMON")
  w1=$(date +%s%N)
  th1=$(thread_ticks "$DAEMON")
  scrape >"$LAB_OUT/after.prom" || lab_fail "scrape failed"
  local cpu usr sys top threads fds per_s
  per_s="$HZ / (($w1 - $w0) / 1e9) * 100"
  cpu=$(calc "($u1 + $s1 - $u0 - $s0) / $per_s")
  usr=$(calc "($u1 - $u0) / $per_s")
  sys=$(calc "($s1 - $s0) / $per_s")
  # The busiest thread over the window (with ud_ping: the device's pinger loop).
  top=$(awk 'NR == FNR {t0[$1] = $2; next} {d = $2 - t0[$1]; if (d > m) m = d} END {print m + 0}' \
    <(echo "$th0") <(echo "$th1"))
  top=$(calc "$top / $per_s")
  threads=$(status_field "$DAEMON" Threads)
  fds=$(find "/proc/$DAEMON/fd" -mindepth 1 -maxdepth 1 | wc -l)
  sent0=$(metric_sum "$LAB_OUT/before.prom" rxe_ud_ping_sent_total)
  sent1=$(metric_sum "$LAB_OUT/after.prom" rxe_ud_ping_sent_total)
  lost0=$(metric_sum "$LAB_OUT/before.prom" rxe_ud_ping_lost_total)
  lost1=$(metric_sum "$LAB_OUT/after.prom" rxe_ud_ping_lost_total)
  local secs pps loss
  secs=$(calc "($w1 - $w0) / 1e9")
  pps=$(calc "($sent1 - $sent0) / $secs" 1)
  loss=$(calc "($sent1 > $sent0) ? ($lost1 - $lost0) / ($sent1 - $sent0) * 100 : 0" 3)

  # 3. scrapes
  local bytes=0 total_ms=0 r ms out=$LAB_OUT/scrape-$n-${agg:-peer}.prom
  t0=$(proc_ticks "$DAEMON")
  for ((i = 0; i < SCRAPES; i++)); do
    r=$(curl -sf --max-time 30 -o "$out" -w '%{time_total} %{size_download}' http://127.0.0.1:19791/metrics) ||
      lab_fail "scrape failed"
    read -r ms bytes <<<"$r"
    ms=$(calc "$ms * 1000")
    total_ms=$(calc "$total_ms + $ms")
  done
  t1=$(proc_ticks "$DAEMON")
  local samples ud_samples scrape_ms scrape_cpu_ms
  samples=$(grep -vc '^#' "$out")
  ud_samples=$(grep -cE '^(rxe_ud_ping_[a-z_]+|rxe_probe_latency_seconds_[a-z]+)\{[^}]*module=' "$out" || true)
  scrape_ms=$(calc "$total_ms / $SCRAPES" 1)
  scrape_cpu_ms=$(calc "($t1 - $t0) * 1000 / $HZ / $SCRAPES" 1)
  ((n == 0)) || [[ -z $PROFILE ]] || profile "$n" "${agg:-peer}"

  kill -TERM "$DAEMON"
  lab_bg_wait "$DAEMON" 30 || lab_fail "daemon did not stop"
  DAEMON=""
  printf '%-14s %7s %6s %6s %7s %9s %9s %7s %5s %8s %8s %9s %9s %10s %7s %7s\n' "$name" "$cpu" "$usr" "$sys" \
    "$top" "$(calc "$rss / 1024" 1)" \
    "$(calc "$rss_max / 1024" 1)" "$threads" "$fds" "$samples" "$ud_samples" "$bytes" "$scrape_ms" "$scrape_cpu_ms" \
    "$pps" "$loss" >>"$ROWS"
  tail -n 1 "$ROWS"

  if ((n > 0)); then  # the mesh works: every peer pinged at the configured rate
    awk -v p="$pps" -v n="$n" -v i="$INTERVAL_S" 'BEGIN {e = n / i; exit !(p >= 0.8 * e && p <= 1.2 * e)}' ||
      lab_fail "$name: $pps pings/s, expected $n / ${INTERVAL_S}s = $(calc "$n / $INTERVAL_S" 1) (+-20 %)"
  fi
}

: >"$ROWS"
run 0 ""
for n in ${PEER_COUNTS//,/ }; do
  run "$n" ""
  run "$n" rack
done

echo
echo "ud_ping scale, 1 VM (TCG, 1 vCPU), rdma_rxe loopback, interval ${INTERVAL_S}s, window ${WINDOW_S}s;"
echo "peers = N entries for this VM's own responder; agg rack = aggregate_by: rack ($RACK_SIZE peers per rack)"
printf '%-14s %7s %6s %6s %7s %9s %9s %7s %5s %8s %8s %9s %9s %10s %7s %7s\n' 'peers/series' 'cpu_%' 'usr_%' \
  'sys_%' 'top_thr' 'rss_MiB' \
  'rss_max' 'threads' 'fds' 'samples' 'ud_smpl' 'bytes' 'scrape_ms' 'scrape_cpu' 'pings/s' 'loss_%'
cat "$ROWS"
echo "cpu_% = usr_% + sys_% (of one core, whole process); top_thr = the busiest thread's cpu_%"
echo "goals (issue 15) at 1000 peers: <= 5 % of a core, <= 64 MiB RSS"
