#!/usr/bin/env bash
# Captures the real rxe sysfs tree and rdma tool output (run inside the lab, one VM):
#   tests/lab/lab.sh --vms 1 --out /tmp/cap -- tests/lab/capture-sysfs.sh
# Writes, under $LAB_OUT (or the directory given as $1, which must be writable in the VM):
#   sys/class/infiniband/<dev>/...      every readable attribute as a plain file: device
#                                      files, ports/1/{state,...,gids/*,pkeys/*,hw_counters/*},
#                                      gid_attrs/{types,ndevs}/N only for valid GIDs (empty
#                                      slots fail with EINVAL and are left out); no power/
#   sys/class/infiniband_verbs/{abi_version,uverbsN/{ibdev,abi_version,dev}}
#   sys/class/net/<netdev>/{mtu,operstate,carrier,speed,address,...,statistics/*}
#   *.txt  rdma link/statistic/resource output, uname -r, ibv_devinfo -v, capture.txt (what/when)
#   perftest/*.txt  the perftest outputs of the traffic run
# Perftest traffic (write bw, send lat, send bw) runs first so that the counters are non-zero.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"

DEST=${1:-$LAB_OUT}
DEV=$LAB_RDMA_DEV

# run_pair TOOL PORT ARGS...: perftest server + client (to our own IP) on $DEV.
run_pair() {
  local tool=$1 port=$2 spid
  shift 2
  local log=$DEST/perftest/$tool
  lab_log "$tool $*"
  "$tool" -d "$DEV" -p "$port" -F "$@" >"$log.server.txt" 2>&1 &
  spid=$!
  lab_wait_listen "$port" 30 || lab_fail "$tool server did not start"
  timeout 180 "$tool" -d "$DEV" -p "$port" -F "$@" "$LAB_IP" >"$log.client.txt" 2>&1 ||
    lab_fail "$tool client failed: $(tail -n 5 "$log.client.txt")"
  lab_bg_wait "$spid" 60 || lab_fail "$tool server failed: $(tail -n 5 "$log.server.txt")"
}

traffic() {
  run_pair ib_write_bw 18601 -s 65536 -n 1000
  run_pair ib_send_lat 18602 -n 500
  run_pair ib_send_bw 18603 -s 4096 -n 2000
  run_pair ib_read_lat 18604 -n 200
  # A little real netdev traffic too (RoCE loopback bypasses the netdev counters).
  busybox ping -c 3 -W 1 "$LAB_IP" >/dev/null 2>&1 || true
}

# copy_tree SRC DST [SKIP_DIR...]: copies every readable regular file of a sysfs directory
# (symlinks are not followed inside it, so no loops), keeping relative paths.
copy_tree() {
  python3 - "$@" <<'EOF'
import os, sys
src, dst, skip = os.path.realpath(sys.argv[1]), sys.argv[2], set(sys.argv[3:])
copied = failed = 0
ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000'

def empty_gid_slot(root, name):
    # gid_attrs/{types,ndevs}/N of an empty GID slot: read() fails with EINVAL (slow to try).
    if os.path.basename(os.path.dirname(root)) != 'gid_attrs':
        return False
    try:
        with open(os.path.join(root, '..', '..', 'gids', name)) as f:
            return f.read().strip() == ZERO_GID
    except OSError:
        return False

for root, dirs, files in os.walk(src):  # followlinks=False
    rel = os.path.relpath(root, src)
    dirs[:] = sorted(d for d in dirs if os.path.normpath(os.path.join(rel, d)) not in skip)
    for name in sorted(files):
        path = os.path.join(root, name)
        if os.path.islink(path) or empty_gid_slot(root, name):
            continue
        try:
            with open(path, 'rb') as f:
                data = f.read()
        except OSError:  # write-only, EINVAL (empty gid_attrs slot), EOPNOTSUPP...
            failed += 1
            continue
        out = os.path.join(dst, rel, name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, 'wb') as f:
            f.write(data)
        copied += 1
print(f"{src} -> {dst}: {copied} files ({failed} unreadable, skipped)")
EOF
}

copy_sysfs() {
  local sys=$DEST/sys uv
  rm -rf "$sys"
  copy_tree "/sys/class/infiniband/$DEV" "$sys/class/infiniband/$DEV" power
  mkdir -p "$sys/class/infiniband_verbs"
  cp /sys/class/infiniband_verbs/abi_version "$sys/class/infiniband_verbs/"
  for uv in /sys/class/infiniband_verbs/uverbs*; do
    [[ $(cat "$uv/ibdev") == "$DEV" ]] || continue
    mkdir -p "$sys/class/infiniband_verbs/${uv##*/}"
    cp "$uv"/{ibdev,abi_version,dev} "$sys/class/infiniband_verbs/${uv##*/}/"
  done
  copy_tree "/sys/class/net/$LAB_NETDEV" "$sys/class/net/$LAB_NETDEV" power queues
}

save_tools_output() {
  uname -r >"$DEST/uname.txt"
  rdma link >"$DEST/rdma_link.txt"
  rdma -d link >"$DEST/rdma_link_details.txt"
  rdma statistic show >"$DEST/rdma_statistic.txt"
  rdma resource show >"$DEST/rdma_resource.txt"
  rdma -j -p statistic show >"$DEST/rdma_statistic.json"
  rdma -j -p resource show >"$DEST/rdma_resource.json"
  ibv_devinfo -v -d "$DEV" >"$DEST/ibv_devinfo.txt"
  ip -d -s link show dev "$LAB_NETDEV" >"$DEST/ip_link.txt"
}

# rdma resource show while a QP is up (the idle output above has no QPs).
busy_resources() {
  local spid cpid
  ib_send_lat -d "$DEV" -p 18605 -F -n 100000 >/dev/null 2>&1 &
  spid=$!
  lab_wait_listen 18605 30 || lab_fail "server did not start"
  ib_send_lat -d "$DEV" -p 18605 -F -n 100000 "$LAB_IP" >/dev/null 2>&1 &
  cpid=$!
  sleep 3
  lab_log "rdma resource show (busy)"
  rdma resource show >"$DEST/rdma_resource_busy.txt"
  rdma resource show qp >>"$DEST/rdma_resource_busy.txt"
  kill "$cpid" "$spid" 2>/dev/null || true
  wait "$cpid" "$spid" 2>/dev/null || true
}

describe() {
  {
    echo "captured: $(date -u +%Y-%m-%dT%H:%M:%SZ) by tests/lab/capture-sysfs.sh in the lab VM"
    echo "kernel: $(uname -r) ($(uname -v))"
    echo "rdma device: $DEV on $LAB_NETDEV (kind $(ip -j -d link show dev "$LAB_NETDEV" |
      jq -r '.[0].linkinfo.info_kind // "physical"'), mtu $(cat "/sys/class/net/$LAB_NETDEV/mtu"), ip $LAB_IP)"
    echo "rdma-core: $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null), perftest: $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
    echo "traffic before the capture: perftest loopback on $DEV (see perftest/)"
  } >"$DEST/capture.txt"
}

main() {
  mkdir -p "$DEST/perftest"
  traffic
  busy_resources
  copy_sysfs
  save_tools_output
  describe
  lab_log "hw_counters: $(cd "/sys/class/infiniband/$DEV/ports/1/hw_counters" &&
    grep -H . sent_pkts rcvd_pkts rdma_sends rdma_recvs | tr '\n' ' ')"
  lab_log "captured into $DEST"
}

main "$@"
