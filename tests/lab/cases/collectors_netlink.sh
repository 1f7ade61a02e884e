#!/usr/bin/env bash
# lab: vms=2 timeout=600
# RDMA netlink + rtnetlink collectors against a real rdma_rxe (2 VMs, so RoCE
# traffic crosses the netdev; same-device loopback would bypass it).
# vm1 runs perftest servers; vm0 is the client and checks, with collect_once:
#  1. hw counters (netlink) increase across an ib_write_bw run;
#  2. netlink values == `rdma statistic show link rxe0/1` taken right after;
#  3. netlink == sysfs hw_counters (files and the sysfs collector), read after
#     the 10 ms sysfs lifespan;
#  4. rxe_netdev_{transmit,receive}_bytes_total move by at least the RoCE bytes;
#  5. rxe_device_resources qp/cq/mr/pd go up during a run and back after;
# and captures raw nldev replies (nl_capture) into $LAB_OUT/capture for
# tests/fixtures/netlink/. Timing of a netlink scrape is logged.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

TOOLS=$LAB_BUILD/tests
COLLECT=$TOOLS/collect_once
CAPTURE=$TOOLS/nl_capture
SERVER_IP=${LAB_IPS##* }
DEV=$LAB_RDMA_DEV
SIZE=65536 ITERS=500
DURATION=30 # phase 5 run (s): long enough to capture while it runs (checked after the capture)
T=240 # per perftest step; TCG on a busy 2-core host is slow
W=$LAB_OUT/vm$LAB_INDEX
mkdir -p "$W" "$LAB_OUT/capture"

# val FILE METRIC LABELS...: the sample value whose line has all LABELS (k="v"), or "".
val() {
  local file=$1 name=$2
  shift 2
  awk -v name="$name" -v labels="$*" '
    index($0, name "{") == 1 {
      n = split(labels, want, " "); ok = 1
      for (i = 1; i <= n; i++) if (index($0, want[i]) == 0) ok = 0
      if (ok) { print $NF; exit }
    }' "$file"
}
# check DESC EXPR: evaluates an awk boolean expression on numbers, logs and fails.
check() {
  if awk "BEGIN { exit !($2) }"; then lab_log "ok: $1 ($2)"; else lab_fail "$1: ($2) is false"; fi
}
scrape() { "$COLLECT" "$@" 2>>"$W/collect.err"; }
port_labels='device="'$DEV'" port="1"'

if ((LAB_INDEX == 1)); then # ---- server VM
  ib_write_bw -d "$DEV" -F -s $SIZE -n $ITERS -p 18515 >"$W/server1.log" 2>&1 &
  lab_wait_listen 18515 60 || lab_fail "ib_write_bw server 1 did not listen"
  lab_signal server1
  lab_bg_wait $! $T || lab_fail "ib_write_bw server 1 failed: $(tail -3 "$W/server1.log")"
  ib_write_bw -d "$DEV" -F -s $SIZE -D $DURATION -p 18516 >"$W/server2.log" 2>&1 &
  lab_wait_listen 18516 60 || lab_fail "ib_write_bw server 2 did not listen"
  lab_signal server2
  lab_bg_wait $! $T || lab_fail "ib_write_bw server 2 failed: $(tail -3 "$W/server2.log")"
  lab_wait_signal client-done 600
  exit 0
fi

# ---- client VM (vm0)
lab_log "kernel $(uname -r), $DEV on $LAB_NETDEV, server $SERVER_IP"
scrape >"$W/before.prom" || lab_fail "collect_once failed: $(cat "$W/collect.err")"
grep -q '^rxe_port_sent_packets_total' "$W/before.prom" ||
  lab_fail "no hw counters from netlink in $W/before.prom"

busybox ping -c 1 -W 10 "$SERVER_IP" >/dev/null || lab_fail "no ping reply from $SERVER_IP"
lab_wait_signal server1 $T
timeout $T ib_write_bw -d "$DEV" -F -s $SIZE -n $ITERS -p 18515 "$SERVER_IP" \
  >"$W/client1.log" 2>&1 || lab_fail "ib_write_bw client failed: $(tail -5 "$W/client1.log")"
scrape --only rdma_netlink >"$W/netlink.prom"
rdma statistic show link "$DEV/1" >"$W/rdma_stat.txt"
lab_sleep 0.1 # > hw_counters/lifespan (10 ms)
for f in /sys/class/infiniband/"$DEV"/ports/1/hw_counters/*; do
  echo "${f##*/} $(cat "$f")"
done >"$W/sysfs_files.txt"
scrape --hw-counter-source sysfs --only sysfs >"$W/sysfs.prom" || true
scrape >"$W/after.prom"
lab_log "ib_write_bw: $(awk '/^ *#bytes/ {getline; print; exit}' "$W/client1.log")"

# 1. counters increase: >= one packet per MTU-sized (<= 4096) segment of every message
sent0=$(val "$W/before.prom" rxe_port_sent_packets_total "$port_labels")
sent1=$(val "$W/after.prom" rxe_port_sent_packets_total "$port_labels")
rcvd0=$(val "$W/before.prom" rxe_port_received_packets_total "$port_labels")
rcvd1=$(val "$W/after.prom" rxe_port_received_packets_total "$port_labels")
check "sent_pkts grew by >= $((SIZE * ITERS / 4096)) ($sent0 -> $sent1)" \
  "$sent1 - $sent0 >= $((SIZE * ITERS / 4096))"
check "rcvd_pkts grew (ACKs) ($rcvd0 -> $rcvd1)" "$rcvd1 > $rcvd0"

# 2 + 3. every counter: netlink (collector) == rdma statistic == sysfs file, and
# the sysfs collector's series == the netlink collector's series.
declare -A METRIC=(  # docs/DESIGN.md "hw counters"
  [sent_pkts]=sent_packets [rcvd_pkts]=received_packets [duplicate_request]=duplicate_requests
  [out_of_seq_request]=out_of_sequence_requests [rcvd_rnr_err]=rnr_naks_received
  [send_rnr_err]=rnr_naks_sent [rcvd_seq_err]=sequence_error_naks_received
  [ack_deferred]=ack_deferred [retry_exceeded_err]=retry_exceeded_errors
  [retry_rnr_exceeded_err]=rnr_retry_exceeded_errors [completer_retry_err]=completer_retries
  [send_err]=send_errors [link_downed]=link_downed [rdma_sends]=rdma_sends
  [rdma_recvs]=rdma_receives [sent_bytes]=sent_bytes [rcvd_bytes]=received_bytes)
tr ' ' '\n' <"$W/rdma_stat.txt" | awk 'NR > 2 && NF' | paste - - >"$W/rdma_stat_pairs.txt"
n=0
while read -r name value; do
  [[ $name == lifespan ]] && continue
  if [[ -n ${METRIC[$name]:-} ]]; then
    nl=$(val "$W/netlink.prom" "rxe_port_${METRIC[$name]}_total" "$port_labels")
  else
    nl=$(val "$W/netlink.prom" rxe_port_hw_counter_total "counter=\"$name\"" "$port_labels")
  fi
  rs=$(awk -v n="$name" '$1 == n {print $2}' "$W/rdma_stat_pairs.txt")
  [[ -n $nl ]] || lab_fail "counter $name missing from the netlink collector output"
  [[ -n $rs ]] || lab_fail "counter $name missing from rdma statistic: $(cat "$W/rdma_stat.txt")"
  check "$name: netlink == rdma statistic" "$nl == $rs"
  check "$name: sysfs file == rdma statistic" "$value == $rs"
  n=$((n + 1))
done <"$W/sysfs_files.txt"
check "$n counters compared" "$n >= 15"
hw_series() { grep -E '^rxe_port_[a-z_]+\{' "$1" | grep -F 'port="1"' | grep -F "device=\"$DEV\"" |
  grep -Ff <(printf 'rxe_port_%s_total{\n' "${METRIC[@]}" hw_counter) | sort; }
nl_all=$(hw_series "$W/netlink.prom") sf_all=$(hw_series "$W/sysfs.prom")
[[ -n $sf_all ]] || lab_fail "sysfs collector exported no hw counters (--hw-counter-source sysfs)"
[[ $nl_all == "$sf_all" ]] ||
  lab_fail "sysfs collector != netlink: $(diff <(echo "$nl_all") <(echo "$sf_all") | head -6)"
lab_log "ok: sysfs collector hw counter series == netlink series ($(wc -l <<<"$nl_all") lines)"

# 4. netdev bytes: RDMA WRITE payload leaves through the netdev
nd_labels="$port_labels netdev=\"$LAB_NETDEV\""
tx0=$(val "$W/before.prom" rxe_netdev_transmit_bytes_total "$nd_labels")
tx1=$(val "$W/after.prom" rxe_netdev_transmit_bytes_total "$nd_labels")
rx0=$(val "$W/before.prom" rxe_netdev_receive_bytes_total "$nd_labels")
rx1=$(val "$W/after.prom" rxe_netdev_receive_bytes_total "$nd_labels")
[[ -n $tx0 && -n $tx1 ]] || lab_fail "no rxe_netdev_transmit_bytes_total for $LAB_NETDEV"
check "netdev tx bytes grew by >= payload $((SIZE * ITERS)) ($tx0 -> $tx1)" \
  "$tx1 - $tx0 >= $((SIZE * ITERS))"
check "netdev rx bytes grew (ACKs) ($rx0 -> $rx1)" "$rx1 > $rx0"
check "netdev up" "$(val "$W/after.prom" rxe_netdev_up "$nd_labels") == 1"

# 5. resources during and after a run
res() { val "$1" rxe_device_resources "device=\"$DEV\"" "resource=\"$2\""; }
scrape --only rdma_netlink >"$W/res_base.prom"
lab_wait_signal server2 $T
timeout $T ib_write_bw -d "$DEV" -F -s $SIZE -D $DURATION -p 18516 "$SERVER_IP" \
  >"$W/client2.log" 2>&1 &
client=$!
busy=0 end=$((SECONDS + T))
while ((SECONDS < end)) && kill -0 $client 2>/dev/null; do
  scrape --only rdma_netlink >"$W/res_busy.prom"
  # busy = the client's MR and QP both exist
  if awk "BEGIN { exit !($(res "$W/res_busy.prom" qp) > $(res "$W/res_base.prom" qp) &&
                         $(res "$W/res_busy.prom" mr) > $(res "$W/res_base.prom" mr)) }"; then
    busy=1 && break
  fi
  lab_sleep 0.2
done
((busy)) || lab_fail "qp count never rose above the baseline during ib_write_bw"
"$CAPTURE" "$LAB_OUT/capture" _busy >"$W/capture_busy.log" 2>&1 || lab_fail "nl_capture busy failed"
# The capture itself proves it ran during the run (the client's QP in it); if it lacks it,
# tell a run that ended first (a slow host: raise DURATION) from a wrong capture.
if ! grep -q "resources: .* qp=$(($(res "$W/res_base.prom" qp) + 1)) " "$W/capture_busy.log"; then
  kill -0 $client 2>/dev/null ||
    lab_fail "harness: ib_write_bw ended before the busy capture (a slow host; raise DURATION)"
  lab_fail "busy capture missed the run: $(grep resources "$W/capture_busy.log")"
fi
lab_bg_wait $client $T || lab_fail "ib_write_bw client 2 failed: $(tail -5 "$W/client2.log")"
for r in qp cq mr pd ctx; do
  b=$(res "$W/res_base.prom" $r) u=$(res "$W/res_busy.prom" $r)
  check "resource $r went up during the run ($b -> $u)" "$u > $b"
done
# The client has exited; the kernel frees its resources on close: poll (no fixed sleep).
end=$((SECONDS + 30))
while scrape --only rdma_netlink >"$W/res_after.prom" &&
  ! awk "BEGIN { exit !($(res "$W/res_after.prom" qp) == $(res "$W/res_base.prom" qp) &&
                        $(res "$W/res_after.prom" mr) == $(res "$W/res_base.prom" mr)) }" &&
  ((SECONDS < end)); do
  lab_sleep 0.2
done
for r in qp cq mr pd ctx cm_id srq; do
  b=$(res "$W/res_base.prom" $r) a=$(res "$W/res_after.prom" $r)
  check "resource $r back to the baseline after the run ($b, now $a)" "$a == $b"
done

# Fixtures (idle after traffic: non-zero counters) and timing.
"$CAPTURE" "$LAB_OUT/capture" >"$W/capture.log" 2>&1 ||
  lab_fail "nl_capture failed: $(cat "$W/capture.log")"
cp /proc/version "$LAB_OUT/capture/kernel.txt"
scrape --only rdma_netlink --repeat 200 >/dev/null
"$CAPTURE" --bench 200 | tee -a "$W/collect.err"
lab_log "timing: $(grep '^timing' "$W/collect.err" | tail -1)"
lab_signal client-done
lab_log "PASS"
