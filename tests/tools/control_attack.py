#!/usr/bin/env python3
"""Hostile clients for the probe responder's control port (docs/protocol.md framing).

Used by tests/lab/cases/responder_security.sh. Each attack opens one TCP connection, sends
something the responder must refuse, and reads the REJECT it gets back. Prints one line per
attack and a summary:
  ATTACK name=bad_magic want=malformed got=malformed ok=1
  SUMMARY connections=N ok=0|1 expected={"malformed": 5, ...}
`expected` is what the responder's rxe_responder_rejections_total{reason} must have grown by
(one rejection per connection). Exit status 0 when every attack got the REJECT it should.

  control_attack.py --host H [--port P] [--bind SRC] [--parallel N] [--only a,b] [--list]
      [--wait-file F]                       start once F exists (python is slow to start in a
                                            TCG VM: start it early, trigger it later)
      [--unlisted-host H2 --unlisted-bind SRC2 [--unlisted-only a,b]]
                                            then the same attacks from an address the responder
                                            does not allow: every one must get not_allowed
      [--burst N]                           then N connections at once, bad magic: each is
                                            counted as malformed or busy (printed, not checked)
  The slow attacks (idle, partial_header: 5 s each) start first, so they overlap the others.
"""
import argparse
import concurrent.futures
import json
import os
import socket
import struct
import sys
import time

MAGIC = b"RXEP"
HELLO, CHALLENGE, AUTH, ACCEPT, REJECT, ENDPOINT, READY, DONE, BYE = range(1, 10)
REASONS = {1: "not_allowed", 2: "auth_failed", 3: "busy", 4: "malformed", 5: "oversized",
           6: "bad_version", 7: "bad_params", 8: "setup_failed", 9: "timeout"}


def frame(mtype, body=b"", version=1, flags=0, length=None, magic=MAGIC):
    n = len(body) if length is None else length
    return magic + struct.pack(">BBHI", version, mtype, flags, n) + body


def hello_body(ptype=0, size=65536, qps=1, post_list=1, cq_mod=1, tx_depth=128, inline=0,
               iterations=1000, duration_ms=1000, mtu=0):
    return os.urandom(32) + struct.pack(">B9I", ptype, size, qps, post_list, cq_mod, tx_depth,
                                        inline, iterations, duration_ms, mtu)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_frame(s):
    """(type, body) of the next frame, or None on EOF/reset."""
    try:
        hdr = recv_exact(s, 12)
        if hdr is None or hdr[:4] != MAGIC:
            return None
        _, mtype, _, length = struct.unpack(">BBHI", hdr[4:])
        body = recv_exact(s, length) if length else b""
        return None if body is None else (mtype, body)
    except OSError:
        return None


def read_reject(s):
    """Reason name of the REJECT the responder sends (skipping nothing else), or 'none:<why>'."""
    f = read_frame(s)
    if f is None:
        return "none:closed"
    mtype, body = f
    if mtype != REJECT:
        return "none:type%d" % mtype
    reason = body[0]
    tlen = struct.unpack(">H", body[1:3])[0]
    text = body[3:3 + tlen].decode(errors="replace")
    return REASONS.get(reason, "reason%d" % reason) + (":" + text if text else "")


# Each attack: (name, reason the responder must answer, function(sock) -> got).
def send_then_reject(data):
    def run(s):
        s.sendall(data)
        return read_reject(s)
    return run


def half_close(data):
    """Sends part of a frame, then EOF (write side only): a truncated message."""
    def run(s):
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        return read_reject(s)
    return run


def idle(s):
    return read_reject(s)  # the responder times the handshake read out (5 s)


def partial_header(s):
    s.sendall(MAGIC + b"\x01")
    return read_reject(s)


def wrong_proof(s):
    s.sendall(frame(HELLO, hello_body()))
    f = read_frame(s)
    if f is None or f[0] != CHALLENGE:
        return "none:no_challenge(%s)" % (f[0] if f else "eof")
    s.sendall(frame(AUTH, os.urandom(32)))
    return read_reject(s)


def challenge_then_garbage(s):
    s.sendall(frame(HELLO, hello_body()))
    f = read_frame(s)
    if f is None or f[0] != CHALLENGE:
        return "none:no_challenge"
    s.sendall(frame(99, b"x" * 7))  # not an AUTH: still a failed authentication
    return read_reject(s)


def oversized_with_body(s):
    # Header announcing 64 KiB, then the body: only the header may be read.
    s.sendall(frame(HELLO, b"\0" * 65536))
    return read_reject(s)


ATTACKS = [
    ("bad_magic", "malformed", send_then_reject(frame(HELLO, hello_body(), magic=b"HTTP"))),
    ("http_get", "malformed", send_then_reject(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")),
    ("reserved_flags", "malformed", send_then_reject(frame(HELLO, hello_body(), flags=1))),
    ("unknown_type", "malformed", send_then_reject(frame(42, b""))),
    ("ready_first", "malformed", send_then_reject(frame(READY))),
    ("truncated_hello", "malformed", send_then_reject(frame(HELLO, hello_body()[:20]))),
    # HELLO's optional tail (options byte, then qp_timeout when bit 1 is set) is part of the
    # message, so the trailing byte goes after the longest valid HELLO.
    ("trailing_bytes", "malformed",
     send_then_reject(frame(HELLO, hello_body() + bytes([0x02, 18]) + b"\0"))),
    ("options_zero", "bad_params", send_then_reject(frame(HELLO, hello_body() + b"\0"))),
    ("qp_timeout_32", "bad_params", send_then_reject(frame(HELLO, hello_body() + bytes([0x02, 32])))),
    ("eof_in_header", "malformed", half_close(MAGIC + b"\x01")),
    ("eof_in_body", "malformed", half_close(frame(HELLO, hello_body())[:12 + 30])),
    ("oversized_4097", "oversized", send_then_reject(frame(HELLO, length=4097))),
    ("oversized_4g", "oversized", send_then_reject(frame(HELLO, length=0xFFFFFFFF))),
    ("oversized_body", "oversized", oversized_with_body),
    ("version_2", "bad_version", send_then_reject(frame(HELLO, hello_body(), version=2))),
    ("version_0", "bad_version", send_then_reject(frame(HELLO, hello_body(), version=0))),
    ("qps_0", "bad_params", send_then_reject(frame(HELLO, hello_body(qps=0)))),
    ("size_above_cap", "bad_params", send_then_reject(frame(HELLO, hello_body(size=8 << 20)))),
    ("wrong_proof", "auth_failed", wrong_proof),
    ("garbage_for_auth", "auth_failed", challenge_then_garbage),
    ("idle", "timeout", idle),
    ("partial_header", "timeout", partial_header),
]


def connect(host, port, bind):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(20)
    if bind:
        s.bind((bind, 0))
    s.connect((host, port))
    return s


def run_attack(args, name, want, fn):
    t0 = time.monotonic()
    try:
        with connect(args.host, args.port, args.bind) as s:
            got = fn(s)
    except OSError as e:
        got = "none:" + type(e).__name__
    reason = got.split(":", 1)[0]
    ok = reason == want
    text = got.split(":", 1)[1] if ":" in got else ""
    return name, want, reason, ok, text, time.monotonic() - t0


def burst(args):
    def one(_):
        try:
            with connect(args.host, args.port, "") as s:
                s.sendall(frame(HELLO, hello_body(), magic=b"XXXX"))
                return read_reject(s).split(":", 1)[0]
        except OSError as e:
            return "none:" + type(e).__name__
    with concurrent.futures.ThreadPoolExecutor(args.burst) as ex:
        got = list(ex.map(one, range(args.burst)))
    counts = {}
    for g in got:
        counts[g] = counts.get(g, 0) + 1
    print("BURST connections=%d got=%s" % (args.burst, json.dumps(counts, sort_keys=True)), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", required=True)
    ap.add_argument("--port", type=int, default=19792)
    ap.add_argument("--bind", default="", help="local source address")
    ap.add_argument("--parallel", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated attack names")
    ap.add_argument("--as-unlisted", action="store_true",
                    help="the source is not allowed: every attack must get not_allowed")
    ap.add_argument("--unlisted-host", default="")
    ap.add_argument("--unlisted-bind", default="")
    ap.add_argument("--unlisted-only", default="")
    ap.add_argument("--wait-file", default="")
    ap.add_argument("--burst", type=int, default=0)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for name, want, _ in ATTACKS:
            print(name, want)
        return 0
    if args.wait_file:
        while not os.path.exists(args.wait_file):
            time.sleep(0.05)
    t0 = time.monotonic()
    plan = []  # (args, attacks)
    attacks = select(args.only, args.as_unlisted)
    if attacks is None:
        return 2
    if attacks:
        plan.append((args, attacks))
    if args.unlisted_host:
        ua = argparse.Namespace(**vars(args))
        ua.host, ua.bind = args.unlisted_host, args.unlisted_bind
        unlisted = select(args.unlisted_only, True)
        if unlisted is None:
            return 2
        plan.append((ua, unlisted))
    expected = {}
    all_ok = True
    n = 0
    for a_args, attacks in plan:
        for _, want, _ in attacks:
            expected[want] = expected.get(want, 0) + 1
        n += len(attacks)
        with concurrent.futures.ThreadPoolExecutor(max(1, args.parallel)) as ex:
            futures = [ex.submit(run_attack, a_args, *a) for a in attacks]
            for fut in futures:
                name, want, got, ok, text, secs = fut.result()
                all_ok &= ok
                print("ATTACK name=%s from=%s want=%s got=%s ok=%d secs=%.2f text=%r"
                      % (name, a_args.bind or "default", want, got, int(ok), secs, text), flush=True)
    if args.burst:
        burst(args)
    print("SUMMARY connections=%d ok=%d secs=%.1f expected=%s"
          % (n, int(all_ok), time.monotonic() - t0, json.dumps(expected, sort_keys=True)),
          flush=True)
    return 0 if all_ok else 1


def select(only, as_unlisted):
    """The attacks to run (slow ones first), or None for an unknown name."""
    attacks = sorted(ATTACKS, key=lambda a: a[0] not in ("idle", "partial_header"))
    if only:
        names = only.split(",")
        attacks = [a for a in attacks if a[0] in names]
        if len(attacks) != len(names):
            print("unknown attack in --only", file=sys.stderr)
            return None
    if as_unlisted:
        attacks = [(n, "not_allowed", f) for n, _, f in attacks]
    return attacks


if __name__ == "__main__":
    sys.exit(main())
