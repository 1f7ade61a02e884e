#!/usr/bin/env python3
"""Watches the lab VMs' virtio-net queues from the host, through each qemu's QMP socket.

    nic_watch.py CTL_DIR NVMS [INTERVAL_S]
    nic_watch.py --self-test     (the stall rule on made-up queue states; ctest runs it)

Started by lab.sh for a multi-VM run. Every INTERVAL_S (5) seconds it reads, for each VM, the
TX queue of its lab NIC as qemu sees it (x-query-virtio-queue-status) and the ring indices in
guest memory (x-query-virtio-queue-element; the event indices with the monitor's `xp`). A TX
queue whose guest has posted buffers (avail idx ahead of qemu's last_avail_idx) that qemu has
not taken for two polls in a row is stuck on the emulator's side: the guest's kernel then logs
"NETDEV WATCHDOG ... transmit queue 0 timed out" and rxe's packets stay queued. At the first
such poll it writes CTL_DIR/vmI.nicstall (both queues, raw) and prints one line to stderr; it
prints again if the queue moves again. Every poll adds a line to CTL_DIR/vmI.nicwatch (both
queues' indices), the NIC's history before a stall. It only reads (the VMs are never changed);
lab.sh stops it when the VMs are gone.
"""
import json
import os
import socket
import sys
import time

NET_PATH = "/machine/peripheral/labnet/virtio-backend"
RX, TX = 0, 1


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(path)
        self.buf = b""
        self._read()  # greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if line.strip():
                    msg = json.loads(line)
                    if "event" not in msg:
                        return msg
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("QMP socket closed")
            self.buf += chunk

    def cmd(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        msg = self._read()
        if "error" in msg:
            raise RuntimeError(f"{name}: {msg['error'].get('desc', msg['error'])}")
        return msg["return"]

    def xp16(self, addr):
        out = self.cmd("human-monitor-command", **{"command-line": f"xp /1hx {addr:#x}"})
        return int(out.split(":")[1].split()[0], 16)


def queue_state(qmp, queue):
    st = qmp.cmd("x-query-virtio-queue-status", path=NET_PATH, queue=queue)
    el = qmp.cmd("x-query-virtio-queue-element", path=NET_PATH, queue=queue)
    num = st["vring-num"]
    return {
        "inuse": st["inuse"],
        "last_avail_idx": st.get("last-avail-idx"),
        "shadow_avail_idx": st.get("shadow-avail-idx"),
        "used_idx": st["used-idx"],
        "signalled_used": st["signalled-used"],
        "signalled_used_valid": st["signalled-used-valid"],
        "vring_num": num,
        "guest_avail_idx": el["avail"]["idx"],
        "guest_avail_flags": el["avail"]["flags"],
        "guest_used_idx": el["used"]["idx"],
        "used_flags": el["used"]["flags"],
        # VIRTIO_RING_F_EVENT_IDX: used_event (written by the guest) follows avail->ring[num],
        # avail_event (written by qemu) follows used->ring[num].
        "used_event": qmp.xp16(st["vring-avail"] + 4 + 2 * num),
        "avail_event": qmp.xp16(st["vring-used"] + 4 + 8 * num),
    }


def pending(q):
    """Buffers the guest has posted that qemu has not taken yet (the indices wrap at 2^16)."""
    return (q["guest_avail_idx"] - q["last_avail_idx"]) & 0xFFFF


def tx_stuck(prev, cur):
    """True if qemu took nothing from the TX queue between two polls although it had work for
    the whole time: buffers were waiting at both polls, or it held a popped buffer (inuse, a
    packet waiting for the tap) at both without completing anything."""
    if not prev or cur["last_avail_idx"] != prev["last_avail_idx"]:
        return False
    if pending(prev) and pending(cur):
        return True
    return bool(prev["inuse"] and cur["inuse"] and cur["used_idx"] == prev["used_idx"])


def self_test():
    def q(last, avail, inuse=0, used=None):
        return {"last_avail_idx": last, "guest_avail_idx": avail, "inuse": inuse,
                "used_idx": last - inuse if used is None else used}
    cases = [
        ("first poll", None, q(10, 15), False),
        ("idle", q(10, 10), q(10, 10), False),
        ("moving", q(10, 15), q(20, 22), False),
        ("drained since", q(10, 15), q(15, 15), False),
        ("stuck, ring full", q(10, 250), q(10, 250), True),
        ("stuck, guest still adding", q(10, 12), q(10, 20), True),
        ("stuck across the wrap", q(65534, 3), q(65534, 3), True),
        ("posted only after the first poll", q(10, 10), q(10, 12), False),
        ("a packet held for the tap", q(11, 11, inuse=1, used=10), q(11, 11, inuse=1, used=10), True),
        ("held, then completed", q(11, 11, inuse=1, used=10), q(11, 11, inuse=1, used=11), False),
    ]
    bad = [name for name, prev, cur, want in cases if tx_stuck(prev, cur) != want]
    if pending(q(65535, 3)) != 4:
        bad.append("pending across the wrap")
    # The report lines are only printed at a stall: a key they name wrong must fail here.
    full = dict(q(10, 20), shadow_avail_idx=10, used_flags=1, avail_event=10, used_event=0,
                signalled_used=9)
    if "NO_NOTIFY 1" not in diagnosis(full) or "shadow=10" not in row("tx", full):
        bad.append("report lines")
    for name in bad:
        print(f"nic_watch self-test FAILED: {name}", file=sys.stderr)
    print(f"nic_watch self-test: {len(cases) + 2 - len(bad)} of {len(cases) + 2} passed")
    return 1 if bad else 0


def qemu_said(path):
    """The last lines qemu wrote to its stderr (lab.sh's vmI.qemu.log), e.g. a virtio_error such
    as "Desc next is N", after which qemu treats the device as broken and serves no queue."""
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip() for line in f.readlines()[-5:] if line.strip()]
    except OSError:
        return []


def diagnosis(q):
    """qemu's TX queue state in words. shadow_avail_idx is the guest's avail idx as qemu last
    read it: equal to last_avail_idx, qemu has not looked at the ring since it drained it. The
    used ring's NO_NOTIFY flag (without event indices) set means qemu has a TX flush scheduled
    and wants no kicks; clear, that it waits for one."""
    return (f"inuse {q['inuse']}, last_avail_idx {q['last_avail_idx']}, shadow_avail_idx "
            f"{q['shadow_avail_idx']}, guest avail idx {q['guest_avail_idx']}, NO_NOTIFY "
            f"{q['used_flags'] & 1}, avail_event {q['avail_event']}")


def row(name, q):
    """One queue's indices on a line of vmI.nicwatch."""
    return (f"{name} last_avail={q['last_avail_idx']} shadow={q['shadow_avail_idx']} "
            f"avail={q['guest_avail_idx']} used_flags={q['used_flags']} "
            f"used={q['used_idx']} inuse={q['inuse']} avail_event={q['avail_event']} "
            f"used_event={q['used_event']} signalled={q['signalled_used']}")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ctl, nvms = sys.argv[1], int(sys.argv[2])
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    conns, last, stuck = {}, {}, {}
    while True:
        for i in range(nvms):
            path = f"{ctl}/vm{i}.qmp"
            if not os.path.exists(path):
                continue
            try:
                if i not in conns:
                    conns[i] = Qmp(path)
                tx = queue_state(conns[i], TX)
                rx = queue_state(conns[i], RX)
            except (OSError, RuntimeError, ValueError, IndexError, KeyError):
                conns.pop(i, None)
                last.pop(i, None)
                continue
            with open(f"{ctl}/vm{i}.nicwatch", "a") as f:
                f.write(f"{time.strftime('%T')} {row('tx', tx)} {row('rx', rx)}\n")
            prev = last.get(i)
            last[i] = tx
            if tx_stuck(prev, tx):
                if not stuck.get(i):
                    stuck[i] = True
                    said = qemu_said(f"{ctl}/vm{i}.qemu.log")
                    with open(f"{ctl}/vm{i}.nicstall", "a") as f:
                        f.write(json.dumps({"time": time.strftime("%T"), "tx": tx, "prev_tx": prev,
                                            "rx": rx, "qemu_log": said}) + "\n")
                    print(f"lab: vm{i}: its NIC's TX queue is stuck in qemu: the guest posted "
                          f"{pending(tx)} buffer(s) qemu has not taken for {interval:.0f}+ s "
                          f"({diagnosis(tx)}); a fault of the emulated NIC, not of rxe or "
                          f"the daemon ({ctl}/vm{i}.nicstall)"
                          + (f"; qemu said: {said[-1]}" if said else ""), file=sys.stderr, flush=True)
            elif stuck.get(i) and prev and tx["last_avail_idx"] != prev["last_avail_idx"]:
                stuck[i] = False
                print(f"lab: vm{i}: its NIC's TX queue moves again", file=sys.stderr, flush=True)
        time.sleep(interval)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
