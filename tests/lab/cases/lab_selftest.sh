#!/usr/bin/env bash
# lab: vms=1 timeout=300
# Lab self-test, one VM: rxe0 on veth0 is ACTIVE, ibv_devinfo works in the chroot, and
# perftest (ib_write_bw, ib_send_lat) runs server + client on rxe0 to its own IP (loopback).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

check_env() {
  local v
  for v in LAB_INDEX LAB_NVMS LAB_IP LAB_IPS LAB_NETDEV LAB_RDMA_DEV LAB_OUT LAB_BUILD; do
    [[ -n ${!v:-} ]] || lab_fail "$v is not set"
    lab_log "$v=${!v}"
  done
  [[ $LAB_NVMS == 1 && $LAB_INDEX == 0 && $LAB_RDMA_DEV == rxe0 ]] || lab_fail "unexpected env"
  [[ -w $LAB_OUT ]] || lab_fail "LAB_OUT not writable"
  [[ $(uname -r) == *-amd64 ]] || lab_fail "not running on Debian's kernel: $(uname -r)"
}

check_device() {
  local link mtu
  link=$(rdma link show "$LAB_RDMA_DEV/1")
  lab_log "rdma link: $link"
  [[ $link == *"state ACTIVE"* && $link == *"netdev $LAB_NETDEV"* ]] || lab_fail "rxe0/1 not ACTIVE"
  [[ $(lab_rdma_port_state) == ACTIVE ]] || lab_fail "sysfs port state not ACTIVE"
  mtu=$(cat "/sys/class/net/$LAB_NETDEV/mtu")
  [[ $mtu == 9000 ]] || lab_fail "$LAB_NETDEV mtu is $mtu, want 9000"
  ibv_devinfo -d "$LAB_RDMA_DEV" >"$LAB_OUT/ibv_devinfo.txt" || lab_fail "ibv_devinfo failed"
  grep -q 'PORT_ACTIVE' "$LAB_OUT/ibv_devinfo.txt" || lab_fail "ibv_devinfo: port not PORT_ACTIVE"
  grep -q 'active_mtu:.*4096' "$LAB_OUT/ibv_devinfo.txt" || lab_fail "active_mtu is not 4096"
  lab_log "ibv_devinfo OK (PORT_ACTIVE, active_mtu 4096)"
}

# perftest TOOL PORT ARGS...: server in the background, client to our own IP; prints the
# result line (the one after the header that starts with '#bytes').
perftest() {
  local tool=$1 port=$2 spid out=$LAB_OUT/$1
  shift 2
  stdbuf -oL "$tool" -d "$LAB_RDMA_DEV" -p "$port" -F "$@" >"$out.server.txt" 2>&1 &
  spid=$!
  lab_wait_listen "$port" 30 || lab_fail "$tool server did not start: $(cat "$out.server.txt")"
  timeout 180 stdbuf -oL "$tool" -d "$LAB_RDMA_DEV" -p "$port" -F "$@" "$LAB_IP" >"$out.client.txt" 2>&1 ||
    lab_fail "$tool client failed (status $?): $(cat "$out.client.txt")"
  lab_bg_wait "$spid" 60 || lab_fail "$tool server failed: $(cat "$out.server.txt")"
  awk '/^ *#bytes/ {hdr=$0; getline; print hdr; print; exit}' "$out.client.txt"
}

main() {
  local sent0 sent1 res
  check_env
  check_device
  sent0=$(lab_hw_counter sent_pkts)
  res=$(perftest ib_write_bw 18515 -s 65536 -n 300 --report_gbits)
  lab_log "ib_write_bw (loopback):"
  echo "$res"
  awk 'NR==2 && $4+0 > 0 {ok=1} END {exit !ok}' <<<"$res" || lab_fail "ib_write_bw: no bandwidth"
  # Few iterations: on 1 vCPU client and server spin on the same CPU (~4 ms per round trip).
  res=$(perftest ib_send_lat 18516 -n 300)
  lab_log "ib_send_lat (loopback):"
  echo "$res"
  awk 'NR==2 && $5+0 > 0 {ok=1} END {exit !ok}' <<<"$res" || lab_fail "ib_send_lat: no latency"
  sent1=$(lab_hw_counter sent_pkts)
  lab_log "hw_counters/sent_pkts $sent0 -> $sent1"
  ((sent1 > sent0)) || lab_fail "sent_pkts did not move"
  lab_log "PASS"
}

main "$@"
