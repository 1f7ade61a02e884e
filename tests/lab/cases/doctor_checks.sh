#!/usr/bin/env bash
# lab: vms=2 timeout=600
# `rxe_exporter doctor` on real rxe between two VMs (vm1 runs the daemon = responder):
#  1. healthy: no check fails (softirq may warn on 1 vCPU; everything else passes), the GID
#     check names vm0's index, peer_control and peer_rdma pass;
#  2. netdev MTU 1500 with --mtu 4096: mtu fails naming jumbo frames (exit 2);
#  3. UDP 4791 dropped by an nftables input rule on vm0 while TCP works: peer_rdma fails
#     naming UDP 4791, and passes again once the rule is removed;
#  4. responder stopped: peer_control fails naming the responder;
#  5. rxe0 deleted: rdma_device fails with the `rdma link add` fix.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
PEER=${LAB_IPS#* }
PEER=${PEER%% *}
N=0

responder() {
  local cfg=$LAB_OUT/responder.yml pid
  printf 'responder:\n  enabled: true\n  listen_addresses: [":19792"]\n  allowed_cidrs: ["10.77.0.0/24"]\n' >"$cfg"
  "$BIN" --config.file "$cfg" --web.listen-address=:19791 >"$LAB_OUT/daemon.log" 2>&1 &
  pid=$!
  lab_wait_listen 19792 60 || lab_fail "responder did not listen: $(cat "$LAB_OUT/daemon.log")"
  lab_signal responder-up
  lab_wait_signal stop-responder 500
  kill -TERM "$pid"
  lab_bg_wait "$pid" 30 || lab_fail "daemon did not stop"
  lab_signal responder-stopped
  lab_wait_signal doctor-done 300 || true
}

# doctor WANT_EXIT ARGS...: runs doctor --output json (WANT_EXIT: a regex like 0|1); the
# JSON is in $LAB_OUT/doctorN.json.
doctor() {
  local want=$1 rc=0
  shift
  N=$((N + 1))
  timeout 120 "$BIN" doctor --output json "$@" >"$LAB_OUT/doctor$N.json" 2>"$LAB_OUT/doctor$N.err" || rc=$?
  lab_log "doctor$N ($*): exit $rc"
  python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print("  %-5s %-13s %s" % (c["status"], c["check"], c["evidence"][:150]))' "$LAB_OUT/doctor$N.json" ||
    lab_fail "doctor$N: bad JSON: $(cat "$LAB_OUT/doctor$N.json" "$LAB_OUT/doctor$N.err")"
  [[ $rc =~ ^($want)$ ]] || lab_fail "doctor$N: exit $rc, want $want"
}

# expect CHECK STATUS TEXT: the last doctor's CHECK has STATUS and TEXT in evidence or fix.
expect() {
  python3 -c 'import json,sys
f,check,status,text=sys.argv[1:5]
cs=[c for c in json.load(open(f))["checks"] if c["check"]==check]
ok=any(c["status"]==status and text in c["evidence"]+" "+c.get("fix","") for c in cs)
sys.exit(0 if ok else 1)' "$LAB_OUT/doctor$N.json" "$1" "$2" "$3" ||
    lab_fail "doctor$N: want $1 $2 mentioning '$3'"
}

checker() {
  lab_wait_signal responder-up 120
  # 1. Healthy.
  local rc
  doctor '0|1' --peer "$PEER" --mtu 4096
  rc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["exit_status"])' "$LAB_OUT/doctor$N.json")
  python3 -c 'import json,sys
bad=[c for c in json.load(open(sys.argv[1]))["checks"] if c["status"] not in ("pass","skip") and c["check"]!="softirq"]
sys.exit(1 if bad else 0)' "$LAB_OUT/doctor$N.json" || lab_fail "healthy VM: a check other than softirq did not pass"
  expect gid pass "index"
  expect peer_rdma pass "succeeded"
  expect softirq "$( ((rc == 1)) && echo warn || echo pass)" "during a 2s write_bw probe"

  # 2. Netdev MTU 1500, RoCE MTU 4096 wanted.
  lab_set_mtu 1500 1024
  doctor 2 --no-probes --mtu 4096
  expect mtu fail "jumbo frames"
  lab_set_mtu 9000 4096

  # 3. A firewall rule drops RoCE v2 (UDP 4791) on input, TCP 19792 still fine.
  command -v nft >/dev/null || lab_fail "nft not found (scripts/install-deps.sh installs nftables)"
  nft -f - <<'NFT' || lab_fail "nft rule failed"
table inet lab_fw {
  chain input {
    type filter hook input priority 0; policy accept;
    udp dport 4791 counter drop
  }
}
NFT
  doctor 2 --peer "$PEER" --timeout 5s
  expect peer_control pass "succeeded"
  expect peer_rdma fail "UDP 4791"
  local dropped
  dropped=$(nft list chain inet lab_fw input | awk '/dport 4791/ {for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1)}')
  lab_log "nft rule dropped ${dropped:-?} RoCE packets"
  [[ ${dropped:-0} -gt 0 ]] || lab_fail "the nft rule dropped nothing: the failure was not the firewall"
  nft delete table inet lab_fw
  doctor '0|1' --peer "$PEER"
  expect peer_rdma pass "succeeded"

  # 4. Responder stopped.
  lab_signal stop-responder
  lab_wait_signal responder-stopped 60
  doctor 2 --peer "$PEER"
  expect peer_control fail "responder is not running"

  # 5. rxe0 deleted.
  rdma link delete "$LAB_RDMA_DEV"
  doctor 2 --no-probes
  expect rdma_device fail "rdma link add rxe0 type rxe netdev"
  rdma link add "$LAB_RDMA_DEV" type rxe netdev "$LAB_NETDEV" || true
  lab_signal doctor-done
  lab_log "PASS"
}

[[ -x $BIN ]] || lab_fail "no $BIN (build the rxe_exporter target)"
if ((LAB_INDEX == 0)); then checker; else responder; fi
