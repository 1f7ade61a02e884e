#!/usr/bin/env bash
# lab: vms=2 timeout=400
# Lab self-test, several VMs on one bridge: each VM's rxe0 on eth0 (MTU 9000) is ACTIVE,
# the VMs reach each other, and perftest runs across VMs: vm0 is the server, every other VM
# a client (own TCP port per client). Works for any --vms >= 2.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BW_PORT=18515 # + client index
LAT_PORT=18615

check_local() {
  local link
  [[ $LAB_NVMS -ge 2 && $LAB_NETDEV == eth0 ]] || lab_fail "needs >= 2 VMs (got $LAB_NVMS, $LAB_NETDEV)"
  [[ $LAB_IP == "10.77.0.$((10 + LAB_INDEX))" ]] || lab_fail "LAB_IP $LAB_IP"
  link=$(rdma link show "$LAB_RDMA_DEV/1")
  lab_log "rdma link: $link"
  [[ $link == *"state ACTIVE"* && $link == *"netdev eth0"* ]] || lab_fail "rxe0/1 not ACTIVE on eth0"
  [[ $(cat /sys/class/net/eth0/mtu) == 9000 ]] || lab_fail "eth0 mtu is not 9000"
  [[ $(ibv_devinfo -d "$LAB_RDMA_DEV") == *PORT_ACTIVE* ]] || lab_fail "ibv_devinfo: not PORT_ACTIVE"
  lab_log "local checks OK"
}

check_peers() {
  local ip
  for ip in $LAB_IPS; do
    [[ $ip == "$LAB_IP" ]] && continue
    # busybox ping (iputils is not a dependency). Jumbo frames are proven by perftest below:
    # rxe sends 4096-byte payloads (active_mtu 4096) with DF set.
    busybox ping -c 1 -W 5 "$ip" >/dev/null || lab_fail "no ping reply from $ip"
  done
  lab_log "all peers answer ping"
}

# result FILE: the header line and the result line of a perftest output.
result() { awk '/^ *#bytes/ {print; getline; print; exit}' "$1"; }

# server TOOL BASEPORT SIGNAL ARGS...: one server per client, signal when all listen.
server() {
  local tool=$1 base=$2 sig=$3 i pids=() out
  shift 3
  for ((i = 1; i < LAB_NVMS; i++)); do
    stdbuf -oL "$tool" -d "$LAB_RDMA_DEV" -p $((base + i)) -F "$@" >"$LAB_OUT/$tool.server$i.txt" 2>&1 &
    pids+=($!)
  done
  for ((i = 1; i < LAB_NVMS; i++)); do
    lab_wait_listen $((base + i)) 30 || lab_fail "$tool server $i did not start"
  done
  lab_signal "$sig"
  for ((i = 1; i < LAB_NVMS; i++)); do
    out=$LAB_OUT/$tool.server$i.txt
    lab_bg_wait "${pids[i - 1]}" 240 || lab_fail "$tool server for vm$i failed: $(tail -n 5 "$out")"
  done
}

# client TOOL BASEPORT SIGNAL ARGS...: waits for the server's signal, runs against vm0.
client() {
  local tool=$1 base=$2 sig=$3 out
  shift 3
  out=$LAB_OUT/$tool.client$LAB_INDEX.txt
  lab_wait_signal "$sig" 300 || lab_fail "vm0 never started the $tool server"
  # stdbuf: keep the output if timeout has to kill it. 240 s: 3 VMs on a busy 2-core host
  # can be slower than 0.01 Gb/s.
  timeout 240 stdbuf -oL "$tool" -d "$LAB_RDMA_DEV" -p $((base + LAB_INDEX)) -F "$@" 10.77.0.10 \
    >"$out" 2>&1 || lab_fail "$tool client failed (status $?): $(grep -v -E '^ *(GID|-+$)' "$out" | tail -n 8)"
  lab_log "$tool vm$LAB_INDEX -> vm0:"
  result "$out"
}

check_counters() {
  local sent rcvd rx
  sent=$(lab_hw_counter sent_pkts) rcvd=$(lab_hw_counter rcvd_pkts)
  rx=$(cat /sys/class/net/eth0/statistics/rx_packets)
  lab_log "hw_counters sent_pkts=$sent rcvd_pkts=$rcvd; eth0 rx_packets=$rx"
  ((sent > 0 && rcvd > 0 && rx >= rcvd)) || lab_fail "counters did not move as expected"
}

main() {
  check_local
  lab_barrier up 120
  check_peers
  if ((LAB_INDEX == 0)); then
    server ib_write_bw $BW_PORT bw-ready -s 65536 -n 200 --report_gbits
    server ib_send_lat $LAT_PORT lat-ready -n 300
  else
    client ib_write_bw $BW_PORT bw-ready -s 65536 -n 200 --report_gbits
    client ib_send_lat $LAT_PORT lat-ready -n 300
    awk 'NR==2 && $4+0 > 0 {ok=1} END {exit !ok}' <(result "$LAB_OUT/ib_write_bw.client$LAB_INDEX.txt") ||
      lab_fail "ib_write_bw: no bandwidth"
  fi
  check_counters
  lab_barrier finished 300
  lab_log "PASS"
}

main "$@"
