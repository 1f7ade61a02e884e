#!/usr/bin/env bash
# lab: vms=1 timeout=900 smp=2 append=idle=poll
# Our probe engine vs perftest on rxe loopback, same parameters, in the same VM run, runs
# alternating (who goes first alternates too):
#  - write_bw 64 KiB, 1 QP, tx depth 128, 4 s: probe_once bw_mib_s vs ib_write_bw "BW
#    average[MB/sec]" (perftest's MB is MiB), BW_ROUNDS rounds, both tools (client and server)
#    pinned to vCPU BW_CPU. PASS iff the geometric mean over the rounds of each round's ratio
#    (ours / perftest, the two runs back to back) is within +-15%.
#  - send_lat 2 B, 1000 iterations: probe_once t_typical_us (the median latency of the run) vs
#    ib_send_lat t_typical, LAT_ROUNDS rounds, client on vCPU 0 and server/responder on vCPU 1
#    for both tools. PASS iff the ratio of the interquartile means (mean of the middle half)
#    over the rounds is within +-15%; medians and best runs over the rounds are printed too.
# Aim: +-10%. Why the runs are laid out like this (all measured in this lab):
#  - The TCG guest's speed drifts: a busy loop in an idle guest ran 1203-1992 loops per 0.5 s,
#    a single ib_write_bw printing every second showed 36, 44, 53, 69, 70 MiB/s. With
#    idle=poll (header) the vCPUs never halt and the host cores stay at speed (the same loop:
#    2029-2069 for 4 s). Even so single runs spread +-20%, so three rounds are not enough:
#    over three sequential rounds the ratio ranged 0.91-1.24 (sessions 1-2).
#  - Bandwidth pinned to one vCPU: unpinned, each run of either tool landed at ~45 or ~68 MiB/s
#    at random (where the guest scheduler put the poller relative to rxe's work). Pinned, the
#    runs are still bimodal (~45-55 or ~65-80 MiB/s for either tool), with the share of fast
#    runs drifting during a run. A ratio of the two tools' medians flips with that share: it
#    failed a clean-clone run at 0.845 while the same rounds' paired ratios had a geometric
#    mean of 0.958. Resampling the rounds of four runs (J, K, session 11, L; 56 pairs) gave
#    these shares of 14-round samples outside +-15%: ratio of medians 13.8 %, median of the
#    paired ratios 1.8 %, their geometric mean 1.1 % (0.3 % with 20 rounds). A round's two
#    runs are back to back, so they tend to share the guest's state, and a fast/slow split
#    within a round counts as much in either direction.
#  - Latency is judged on the interquartile mean: each run of either tool sits near ~11.5 us
#    or, for all of it (its minimum too), at 16-25 us, in proportions that drift with the host
#    (pinning and ASLR change nothing); a median over runs flips between the two (ratio 0.77
#    over 12 rounds), a mean moves smoothly but one run a host hiccup stretched to 4 ms (both
#    spinners on one vCPU, tick-bound; pinning now prevents that) made it 2.35. The
#    interquartile mean is smooth and ignores such runs.
#  - 2 vCPUs: on 1 vCPU client and server spin on the same CPU, ping-pong latency is bound by
#    the guest tick for both tools.
#  - The guest clock is the TSC (lab.sh: tsc=reliable): on the emulated HPET every
#    clock_gettime is an MMIO exit, which cost our send_lat (it stamps every iteration,
#    perftest reads rdtsc) +1.1 us per round trip. Checked below, with a cross-vCPU
#    monotonicity check.
#  - -u 18 for both: with the default 67 ms ACK timeout (-u 14) rdma_rxe counted ~40
#    retransmissions per 3 s run of either tool, about one per timeout period (on this
#    CPU-starved guest ACKs for a deep queue come later than that), and bandwidth depended on
#    how the retransmission timers lined up. -u 18 (~1.07 s): 1-3 per run. Every round prints
#    them.
#  - -D 4: perftest's measurement window is then [1 s, 3 s] (its margin is duration/4 whole
#    seconds; -D 3 has none and counts the start-up), ours [0.25 s, 4 s].
#  - -Q 1 sets the CQ moderation explicitly (our default; perftest's is 100).
#  - 40 latency rounds (~4.7 s each): with 60 the judged ratio stayed within 0.996-1.032 over four
#    clean-clone and CI runs, far inside +-15 %; 20 fewer rounds save ~95 s of a saturated host.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

P=$LAB_BUILD/tests/probe_once
TOL=0.15
BW_ROUNDS=20
BW_CPU=1
LAT_ROUNDS=40
GID=""
PORT=18600

# perftest TOOL COLUMN SERVER_CPUS CLIENT_CPUS ARGS...: TOOL's server and, once it listens, its
# client to $LAB_IP (each on its taskset list); prints column COLUMN of the client's result line
# (the one after the '#bytes' header). Under TCG perftest sometimes cannot calibrate its cycle
# counter (r^2 < 0.9: "Can't produce a report", t_typical "inf", BW average 0.00): such a run
# has no number and is repeated (on a fresh port), up to 3 times. Other errors fail.
perftest() {
  local tool=$1 col=$2 scpus=$3 ccpus=$4 out spid rc v
  shift 4
  for _ in 1 2 3; do
    PORT=$((PORT + 1))
    out=$LAB_OUT/$tool.$PORT
    taskset -c "$scpus" "$tool" -d "$LAB_RDMA_DEV" -x "$GID" -p "$PORT" -F "$@" >"$out.server.txt" 2>&1 &
    spid=$!
    lab_wait_listen "$PORT" 30 || lab_fail "$tool server did not start: $(cat "$out.server.txt")"
    rc=0 v=""
    timeout 120 taskset -c "$ccpus" "$tool" -d "$LAB_RDMA_DEV" -x "$GID" -p "$PORT" -F "$@" "$LAB_IP" \
      >"$out.client.txt" 2>&1 || rc=$?
    ((rc != 0)) || v=$(awk -v c="$col" '/^ *#bytes/ {getline; print $c; exit}' "$out.client.txt")
    lab_bg_wait "$spid" 30 || true
    if [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$v" 'BEGIN {exit !(v > 0)}'; then
      echo "$v"
      return 0
    fi
    grep -qE "Can't produce a report|r\^2" "$out.client.txt" || [[ $v == inf || $v =~ ^0(\.0+)?$ ]] ||
      lab_fail "$tool client failed (status $rc, number '$v'): $(cat "$out.client.txt")"
    lab_log "$(basename "$out") gave no number (cycle counter calibration under TCG)" >&2
  done
  lab_fail "$tool: no number in 3 runs: $(tail -n 3 "$out.client.txt")"
}

# ours FIELD CPUS ARGS...: one probe_once run on CPUS; prints FIELD= of its RESULT line.
ours() {
  local field=$1 cpus=$2 out
  shift 2
  PORT=$((PORT + 1))
  out=$LAB_OUT/ours.$PORT.txt
  # perftest has no deadline; ours gets one close to the 120 s cap of each run.
  timeout 120 taskset -c "$cpus" "$P" --ip "$LAB_IP" -d "$LAB_RDMA_DEV" -x "$GID" --timeout 110 "$@" \
    >"$out" 2>&1 || lab_fail "probe_once $* failed: $(cat "$out")"
  grep '^RESULT' "$out" | tr ' ' '\n' | sed -n "s/^$field=//p"
}

# RC retransmission timeouts so far, reported per run (see the header).
retries() { lab_hw_counter completer_retry_err; }

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
lowest() { printf '%s\n' "$@" | sort -g | head -n 1; }

# ratio NAME OURS PERFTEST: prints both values and their ratio; returns 1 if the ratio is out
# of +-TOL.
ratio() {
  awk -v n="$1" -v o="$2" -v p="$3" -v t="$TOL" 'BEGIN {
    r = (p > 0) ? o / p : 0
    ok = (r >= 1 - t && r <= 1 + t)
    printf "%s: ours %.3f, perftest %.3f, ratio %.3f -> %s\n", n, o, p, r, ok ? "OK" : "OUT OF +-" t*100 "%"
    exit !ok }'
}

# The guest clock both tools' numbers rest on: the TSC, monotonic across the vCPUs.
check_clock() {
  local cs
  cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
  lab_log "clocksource $cs ($(grep -o 'tsc[a-z_]*=[^ ]*' /proc/cmdline | tr '\n' ' '))"
  [[ $cs == tsc ]] || lab_log "NOTE: clocksource $cs, not tsc: every clock read of ours is an emulated MMIO access"
  python3 - <<'EOF' || lab_fail "CLOCK_MONOTONIC is not monotonic across vCPUs"
import os, time
last = 0
for i in range(400):
    os.sched_setaffinity(0, {i % 2})
    t = time.monotonic_ns()
    if t < last:
        raise SystemExit(f"went back {last - t} ns on moving to CPU {i % 2}")
    last = t
EOF
}

# perftest and ours run in $(...) subshells, so main moves PORT on before each call: every
# perftest run takes a fresh port (at most 3 per call).

# bw_round I: one ours and one ib_write_bw run, one after the other (ours first in odd
# rounds), both on vCPU BW_CPU; prints "OURS PERFTEST RETRANSMISSIONS".
bw_round() {
  local r0 o p
  r0=$(retries)
  if (($1 % 2)); then
    o=$(ours bw_mib_s "$BW_CPU" --type write_bw "${BW_ARGS[@]}")
    p=$(perftest ib_write_bw 4 "$BW_CPU" "$BW_CPU" "${BW_ARGS[@]}")
  else
    p=$(perftest ib_write_bw 4 "$BW_CPU" "$BW_CPU" "${BW_ARGS[@]}")
    o=$(ours bw_mib_s "$BW_CPU" --type write_bw "${BW_ARGS[@]}")
  fi
  echo "$o $p $(($(retries) - r0))"
}

# geomean_ratio "O1 O2 ..." "P1 P2 ...": the geometric mean of the ratios Oi / Pi.
geomean_ratio() {
  paste <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") |
    awk '$1 > 0 && $2 > 0 {s += log($1 / $2); n++} END {print n ? exp(s / n) : 0}'
}

# judge NAME RATIO: prints the ratio; returns 1 if it is out of +-TOL.
judge() {
  awk -v n="$1" -v r="$2" -v t="$TOL" "$LAB_AWK_NUM"' BEGIN {
    ok = (lab_num(r) && r >= 1 - t && r <= 1 + t) # NaN fails
    printf "%s: ratio %.3f -> %s\n", n, r, ok ? "OK" : "OUT OF +-" t*100 "%"
    exit !ok }'
}

# iqm VALUES...: the interquartile mean (mean of the middle half, n/4 dropped at each end).
iqm() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {k = int(NR / 4); for (i = k + 1; i <= NR - k; i++) s += v[i]; print s / (NR - 2 * k)}'; }

main() {
  local i all bw_o=() bw_p=() lat_o=() lat_p=() lat_args=(-s 2 -n 1000)
  BW_ARGS=(-s 65536 -q 1 -t 128 -Q 1 -u 18 -D 4)
  [[ -x $P ]] || lab_fail "no $P"
  (($(nproc) > 1)) || lab_fail "needs 2 vCPUs (ping-pong on 1 vCPU is tick-bound)"
  GID=$(lab_gid_index) || lab_fail "no RoCE v2 GID for $LAB_IP on $LAB_RDMA_DEV"
  lab_log "vCPUs $(nproc), $LAB_RDMA_DEV GID index $GID for $LAB_IP"
  check_clock
  all=0-$(($(nproc) - 1))
  for ((i = 1; i <= BW_ROUNDS; i++)); do
    local res o p r
    PORT=$((PORT + 4))
    res=$(bw_round "$i")
    read -r o p r <<<"$res"
    bw_o+=("$o") bw_p+=("$p")
    lab_log "write_bw round $i: MiB/s ours $o perftest $p," \
      "ratio $(awk -v o="$o" -v p="$p" 'BEGIN {printf "%.3f", o / p}') ($r RC retransmissions)"
  done
  for ((i = 1; i <= LAT_ROUNDS; i++)); do
    local lo lp
    PORT=$((PORT + 4))
    if ((i % 2)); then
      lo=$(ours t_typical_us "$all" --type send_lat --pin "${lat_args[@]}")
      PORT=$((PORT + 4))
      lp=$(perftest ib_send_lat 5 1 0 "${lat_args[@]}")
    else
      lp=$(perftest ib_send_lat 5 1 0 "${lat_args[@]}")
      PORT=$((PORT + 4))
      lo=$(ours t_typical_us "$all" --type send_lat --pin "${lat_args[@]}")
    fi
    lat_o+=("$lo") lat_p+=("$lp")
    lab_log "send_lat round $i: t_typical us ours $lo perftest $lp"
  done
  local rc=0
  judge "write_bw BW average, geometric mean of the $BW_ROUNDS rounds' ratios ours / perftest" \
    "$(geomean_ratio "${bw_o[*]}" "${bw_p[*]}")" || rc=1
  ratio "(not judged) write_bw BW average [MiB/s], median of $BW_ROUNDS" "$(median "${bw_o[@]}")" \
    "$(median "${bw_p[@]}")" || true
  ratio "send_lat t_typical [us], interquartile mean of $LAT_ROUNDS" "$(iqm "${lat_o[@]}")" \
    "$(iqm "${lat_p[@]}")" || rc=1
  ratio "(not judged) send_lat t_typical [us], median of $LAT_ROUNDS" \
    "$(median "${lat_o[@]}")" "$(median "${lat_p[@]}")" || true
  ratio "(not judged) send_lat t_typical [us], best of $LAT_ROUNDS" \
    "$(lowest "${lat_o[@]}")" "$(lowest "${lat_p[@]}")" || true
  ((rc == 0)) || lab_fail "ours and perftest disagree by more than +-15%"
  lab_log "PASS"
}

main "$@"
