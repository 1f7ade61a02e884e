#!/usr/bin/env bash
# lab: vms=2 timeout=1500
# Diagnostic, not in the suite: repeats write_bw probes from every VM but vm0 to vm0 (the daemon
# as responder, like lab.responder_security) until one fails or STRESS_SECONDS pass, to catch
# the rare RC stall seen in a clean-clone run and in probe_mesh3 (a probe that ran into its
# deadline, then ibv_destroy_qp blocked 50 s in rxe's __rxe_cleanup with QP references still
# held; the second time vm0's NIC passed no traffic at all). With 3 VMs, vm1 and vm2 write to
# vm0 at once (fan-in: vm0's receive path is the busy one).
# On a failure every VM dumps its state: rxe hw counters, QPs, netdev and qdisc counters, virtio
# interrupts, a ping, and dmesg; lab.sh adds .lab/vmI.net and .lab/host.net.
# Arguments (lab.sh passes no environment to the VMs):
#   [STRESS_SECONDS (1200)] [PROBE_SECONDS (10)] [PROBE_ARGS ("-s 65536 -t 128")]
# e.g. tests/lab/lab.sh --vms 3 --timeout 2000 --out /tmp/stall -- \
#        tests/lab/pending/rc_stall_stress.sh 1800 10 "-s 65536 -t 128"
# (STRESS_SECONDS includes 120 s of margin.) 1-MiB messages fan-in ("-s 1048576 -q 2 -t 64")
# overload vm0 on the TCG lab: the host drops packets on its tap, rxe goes back N on 1-MiB
# messages and the first probes fail with "the RC stream stalled", with or without the NIC's
# event indices (session 13). That is load, not the NIC stall this hunts.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lib.sh"

BIN=$LAB_BUILD/exporter/rxe_exporter
PEER_ONCE=$LAB_BUILD/tests/probe_peer_once
RESPONDER=10.77.0.10
STRESS_SECONDS=${1:-1200}
PROBE_SECONDS=${2:-10}
read -ra PROBE_ARGS <<<"${3:--s 65536 -t 128}"

dump_state() { # dump_state FILE
  {
    echo "== $(date +%T.%3N) vm$LAB_INDEX"
    rdma statistic show link "$LAB_RDMA_DEV/1" || true
    rdma resource show qp || true
    ip -s -s link show "$LAB_NETDEV" || true
    tc -s qdisc show dev "$LAB_NETDEV" || true
    grep -i virtio /proc/interrupts || true
    cat /proc/net/softnet_stat || true
    ping -c 2 -W 1 "$( ((LAB_INDEX == 0)) && echo 10.77.0.11 || echo "$RESPONDER")" || true
    dmesg | tail -n 60
  } >"$1" 2>&1
}

all_clients_done() {
  local i
  for ((i = 1; i < LAB_NVMS; i++)); do [[ -e $LAB_SYNC/client-done-$i ]] || return 1; done
}

responder() {
  local dir=$LAB_OUT/responder
  mkdir -p "$dir"
  printf 'devices: {include: "rxe.*"}\nresponder:\n  enabled: true\n  listen_addresses: [":19792"]\n  allowed_cidrs: ["10.77.0.0/24"]\n' \
    >"$dir/rxe_exporter.yml"
  "$BIN" --config.file "$dir/rxe_exporter.yml" --web.listen-address=:19791 --log.level=debug \
    >"$LAB_OUT/daemon.log" 2>&1 &
  lab_wait_listen 19792 60 || lab_fail "responder did not listen"
  lab_signal responder-up
  # Dump when a client says a probe failed, or at the end (every client done).
  local i
  until [[ -e $LAB_SYNC/client-failed ]] || all_clients_done; do lab_sleep 0.5; done
  if [[ -e $LAB_SYNC/client-failed ]]; then
    dump_state "$LAB_OUT/state.vm0.txt"
    lab_signal vm0-dumped
  fi
  for ((i = 1; i < LAB_NVMS; i++)); do lab_wait_signal "client-done-$i" "$STRESS_SECONDS"; done
  dump_state "$LAB_OUT/state.vm0.end.txt"
}

client() {
  local end n=0 fails=0 out t0 t1
  lab_wait_signal responder-up 120
  end=$(($(date +%s) + STRESS_SECONDS - 120))
  while (($(date +%s) < end)); do
    n=$((n + 1))
    out=$LAB_OUT/probe.vm$LAB_INDEX.$n.txt
    rdma statistic show link "$LAB_RDMA_DEV/1" >"$out.before" 2>&1 || true
    t0=$(date +%s.%N)
    if ! "$PEER_ONCE" --peer "$RESPONDER" --type write_bw "${PROBE_ARGS[@]}" -D "$PROBE_SECONDS" \
      --timeout $((PROBE_SECONDS + 30)) --debug >"$out" 2>&1; then
      t1=$(date +%s.%N)
      fails=$((fails + 1))
      lab_log "probe $n FAILED after $(echo "$t1 - $t0" | bc) s: $(grep RESULT "$out" || tail -n 3 "$out")"
      lab_signal client-failed
      dump_state "$LAB_OUT/state.vm$LAB_INDEX.txt"
      lab_wait_signal vm0-dumped 60 || true
      break
    fi
    [[ -e $LAB_SYNC/client-failed ]] && { lab_log "another client failed: dumping"; dump_state "$LAB_OUT/state.vm$LAB_INDEX.txt"; break; }
    t1=$(date +%s.%N)
    lab_log "probe $n ok $(echo "$t1 - $t0" | bc) s: $(sed -n 's/^RESULT .* bw_mib_s=\([0-9.]*\) .*/\1 MiB\/s/p' "$out")"
    rm -f "$out" "$out.before"
  done
  lab_log "$n probes, $fails failed"
  lab_signal "client-done-$LAB_INDEX"
}

main() {
  case $LAB_INDEX in
    0) responder ;;
    *) client ;;
  esac
  lab_log DONE
}

main "$@"
