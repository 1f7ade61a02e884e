#!/usr/bin/env python3
"""Serves synthetic rxe_exporter /metrics for N fake hosts on loopback (stdlib only).

  fake_exporter.py --hosts 3 --ports-file PATH [--drop METRIC ...]

Every metric family of docs/DESIGN.md ("Metric names", "Probe metrics") with plausible values
that move over time: a full mesh of write_bw and send_lat probes between the hosts, plus a ud_ping
mesh (per-peer and aggregate_by: rack modules, docs/mesh.md). Used by
prometheus_synthetic_test.sh to check that every dashboard query returns data against a real
Prometheus without the lab; the lab case (tests/lab/cases/prometheus_e2e.sh) does the same
against real exporters. Writes one "127.0.0.1:PORT" line per host to --ports-file once listening.
Runs until killed.
"""

import argparse
import http.server
import math
import os
import threading
import time

REASONS = ["connect_refused", "connect_timeout", "rejected", "auth_failed", "no_route", "no_gid",
           "mtu_above_active", "qp_transition_failed", "wc_error", "timeout", "no_device", "protocol_error",
           "internal"]
REJECTIONS = ["not_allowed", "auth_failed", "busy", "malformed", "oversized", "bad_version", "bad_params",
              "setup_failed"]
HW = {  # metric -> per-second rate
    "rxe_port_sent_packets_total": 5000, "rxe_port_received_packets_total": 5000,
    "rxe_port_duplicate_requests_total": 0.1, "rxe_port_out_of_sequence_requests_total": 0.1,
    "rxe_port_rnr_naks_received_total": 0, "rxe_port_rnr_naks_sent_total": 0,
    "rxe_port_sequence_error_naks_received_total": 0.1, "rxe_port_ack_deferred_total": 1,
    "rxe_port_retry_exceeded_errors_total": 0, "rxe_port_rnr_retry_exceeded_errors_total": 0,
    "rxe_port_completer_retries_total": 0.2, "rxe_port_send_errors_total": 0, "rxe_port_link_downed_total": 0,
    "rxe_port_rdma_sends_total": 800, "rxe_port_rdma_receives_total": 800,
}
ATTRIBUTED = ["completer_retry_err", "retry_exceeded_err", "rcvd_seq_err", "out_of_seq_request",
              "duplicate_request", "rcvd_rnr_err", "send_rnr_err", "retry_rnr_exceeded_err"]
BUCKETS = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2,
           0.5, 1.0]
RACKS = ["r1", "r1", "r2"]  # peer label `rack` of host0, host1, host2, ...
T0 = time.time()
DROP = set()  # --drop: families left out (to see check_dashboards.py report dead panels)


def lbl(**kv):
    return "{" + ",".join(f'{k}="{v}"' for k, v in kv.items()) + "}"


def render(host, hosts):
    now = time.time()
    el = now - T0
    wobble = 1 + 0.05 * math.sin(el / 7 + host)
    out = []

    def fam(name, typ, help_text, samples):
        if name in DROP:
            return
        out.append(f"# HELP {name} {help_text}")
        out.append(f"# TYPE {name} {typ}")
        for labels, value in samples:
            out.append(f"{name}{labels} {value:.10g}")

    dev = dict(device="rxe0")
    port = dict(device="rxe0", port="1")
    nd = dict(device="rxe0", port="1", netdev="eth0")
    fam("rxe_exporter_build_info", "gauge", "Build information.",
        [(lbl(version="0.1.0", revision="fake", compiler="gcc 12"), 1)])
    fam("rxe_exporter_config_last_reload_successful", "gauge", "Last reload ok.", [("", 1)])
    fam("rxe_exporter_config_last_reload_success_timestamp_seconds", "gauge", "Last reload time.", [("", T0)])
    fam("rxe_exporter_scrape_collector_success", "gauge", "Collector success.",
        [(lbl(collector=c), 1) for c in ("rdma_netlink", "sysfs", "rtnetlink")])
    fam("rxe_exporter_scrape_collector_duration_seconds", "gauge", "Collector duration.",
        [(lbl(collector=c), 0.001 * (i + 1)) for i, c in enumerate(("rdma_netlink", "sysfs", "rtnetlink"))])
    # The process collector's families (client_golang names; the exporter serves them on Linux).
    fam("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
        [("", 0.02 * el)])
    fam("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [("", 24e6 * wobble)])
    fam("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", [("", 410e6)])
    fam("process_open_fds", "gauge", "Number of open file descriptors.", [("", 21 + host)])
    fam("process_max_fds", "gauge", "Maximum number of open file descriptors.", [("", 8192)])
    fam("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
        [("", T0 - 3600 * (host + 1))])
    fam("rxe_device_info", "gauge", "Device info.",
        [(lbl(device="rxe0", driver="rxe", node_guid="5054:00ff:fe77:000a", sys_image_guid="5054:00ff:fe77:000a",
              fw_version="", node_type="CA"), 1)])
    fam("rxe_port_info", "gauge", "Port info.", [(lbl(link_layer="Ethernet", netdev="eth0", **port), 1)])
    fam("rxe_port_state", "gauge", "Port state.", [(lbl(**port), 4)])
    fam("rxe_port_physical_state", "gauge", "Physical state.", [(lbl(**port), 5)])
    fam("rxe_port_active", "gauge", "Port active.", [(lbl(**port), 1)])
    fam("rxe_port_rate_bytes_per_second", "gauge", "Port rate.", [(lbl(**port), 1.25e9)])
    fam("rxe_port_gid_info", "gauge", "GID table.",
        [(lbl(index="1", gid=f"0000:0000:0000:0000:0000:ffff:0a4d:{10 + host:04x}", gid_type="RoCE v2",
              netdev="eth0", **port), 1)])
    for name, rate in HW.items():
        fam(name, "counter", "rxe hw counter.", [(lbl(**port), math.floor(rate * el))])
    fam("rxe_device_resources", "gauge", "Resources.",
        [(lbl(resource=r, **dev), n) for r, n in (("qp", 3), ("cq", 4), ("mr", 2), ("pd", 2), ("ctx", 1),
                                                   ("cm_id", 0), ("srq", 0))])
    for name, value in (("rxe_netdev_mtu_bytes", 9000), ("rxe_netdev_up", 1), ("rxe_netdev_oper_state", 6)):
        fam(name, "gauge", "netdev.", [(lbl(**nd), value)])
    for name, rate in (("receive_bytes", 2e7), ("transmit_bytes", 2e7), ("receive_packets", 5e3),
                       ("transmit_packets", 5e3), ("receive_errors", 0), ("transmit_errors", 0),
                       ("receive_drops", 0.01), ("transmit_drops", 0)):
        fam(f"rxe_netdev_{name}_total", "counter", "netdev.", [(lbl(**nd), math.floor(rate * el))])

    fam("rxe_host_softirq_seconds_total", "counter", "Softirq time per CPU.",
        [(lbl(cpu=str(c)), el * (0.3 if c == 0 else 0.02)) for c in range(2)])
    fam("rxe_host_softirqs_total", "counter", "NET_RX/NET_TX softirqs.",
        [(lbl(cpu=str(c), softirq=k), math.floor(el * r)) for c in range(2)
         for k, r in (("NET_RX", 3000), ("NET_TX", 50))])
    fam("rxe_host_softirq_busiest_cpu_ratio", "gauge", "Busiest CPU softirq share.", [(lbl(cpu="0"), 0.3 * wobble)])
    fam("rxe_doctor_check_status", "gauge", "Doctor check status.",
        [(lbl(check="rdma_device"), 0), (lbl(check="cpu_governor"), 1), (lbl(check="mtu", **port), 0)])

    # Probes: full mesh, both modules; probes every 2 s in this fake.
    peers = [f"host{j}" for j in range(hosts) if j != host]
    pairs = [(m, p) for m in ("write_bw", "send_lat") for p in peers]
    n = math.floor(el / 2)
    fam("rxe_probes_total", "counter", "Probes.", [(lbl(module=m, peer=p), n) for m, p in pairs])
    fam("rxe_probe_failures_total", "counter", "Probe failures.",
        [(lbl(module=m, peer=p, reason=r), (n // 10 if r == "timeout" else 0)) for m, p in pairs for r in REASONS])
    fam("rxe_probe_success", "gauge", "Last probe ok.", [(lbl(module=m, peer=p), 1) for m, p in pairs])
    fam("rxe_probe_duration_seconds", "gauge", "Last probe duration.",
        [(lbl(module=m, peer=p), 1.2 if m == "write_bw" else 0.05) for m, p in pairs])
    fam("rxe_probe_last_success_timestamp_seconds", "gauge", "Last success.",
        [(lbl(module=m, peer=p), now - 1) for m, p in pairs])
    bw = [(m, p) for m, p in pairs if m == "write_bw"]
    fam("rxe_probe_bandwidth_bytes_per_second", "gauge", "BW.", [(lbl(module=m, peer=p), 9e8 * wobble) for m, p in bw])
    fam("rxe_probe_message_rate_per_second", "gauge", "MsgRate.",
        [(lbl(module=m, peer=p), 9e8 * wobble / 65536) for m, p in bw])
    fam("rxe_probe_transferred_bytes_total", "counter", "Bytes.", [(lbl(module=m, peer=p), n * 9e8) for m, p in pairs])
    fam("rxe_probe_messages_total", "counter", "Messages.", [(lbl(module=m, peer=p), n * 13000) for m, p in pairs])
    lat = [(m, p) for m, p in pairs if m == "send_lat"]
    stats = {"min": 15e-6, "median": 20e-6, "mean": 21e-6, "p99": 40e-6, "p999": 60e-6, "max": 90e-6,
             "stddev": 3e-6}
    for s, v in stats.items():
        fam(f"rxe_probe_latency_{s}_seconds", "gauge", f"Latency {s}.",
            [(lbl(module=m, peer=p), v * wobble) for m, p in lat])
    out.append("# HELP rxe_probe_latency_seconds One-way latency samples.")
    out.append("# TYPE rxe_probe_latency_seconds histogram")
    per_probe = 1000
    shape = {1e-5: 0.0, 2e-5: 0.5, 5e-5: 0.995, 1e-4: 1.0}
    for m, p in lat:
        latency_histogram(out, dict(module=m, peer=p), n * per_probe, shape, 21e-6)
    ud_histogram(out, host, hosts, el)
    fam("rxe_probe_attributed_hw_stat_total", "counter", "Attributed counters.",
        [(lbl(module=m, peer=p, counter=c), n if c == "completer_retry_err" else 0) for m, p in pairs
         for c in ATTRIBUTED])
    ud_ping(fam, host, hosts, el)
    fam("rxe_responder_sessions_total", "counter", "Sessions.", [("", n * len(pairs))])
    fam("rxe_responder_rejections_total", "counter", "Rejections.", [(lbl(reason=r), 0) for r in REJECTIONS])
    fam("rxe_responder_active_sessions", "gauge", "Active sessions.", [("", 1)])
    fam("rxe_prober_deferred_total", "counter", "Deferred.",
        [(lbl(reason=r), n // 5) for r in ("budget", "concurrency")])
    return "\n".join(out) + "\n"


def ud_series(host, hosts, el):
    """[(module, labels, sent, loss ratio)] of this host's ud_ping pairs, and lost per series."""
    peers = [(f"host{j}", RACKS[j % len(RACKS)]) for j in range(hosts) if j != host]
    pings = math.floor(el)
    series = [("mesh", dict(peer=p, rack=r), pings, 0.01 if (host, p) == (0, "host1") else 0.0) for p, r in peers]
    for rack in sorted({r for _, r in peers}):
        k = sum(1 for _, r in peers if r == rack)
        series.append(("mesh_racks", dict(rack=rack), pings * k, 0.0))
    lost = {i: math.floor(sent * loss) for i, (_, _, sent, loss) in enumerate(series)}
    return peers, pings, series, lost


def ud_histogram(out, host, hosts, el):
    """ud_ping's network RTT samples in rxe_probe_latency_seconds (inside that family's block)."""
    _, _, series, lost = ud_series(host, hosts, el)
    shape = {5e-5: 0.2, 1e-4: 0.8, 2e-4: 0.99, 5e-4: 1.0}
    for i, (m, pl, sent, _) in enumerate(series):
        latency_histogram(out, dict(module=m, **pl), sent - lost[i], shape, 70e-6)


def latency_histogram(out, labels, count, shape, mean):
    """rxe_probe_latency_seconds samples: shape = {bucket: cumulative fraction}; 1 above the last."""
    top = max(shape)
    for b in BUCKETS:
        frac = 1.0 if b >= top else shape.get(b, 0.0)
        out.append(f"rxe_probe_latency_seconds_bucket{lbl(le=repr(b), **labels)} {count * frac:.0f}")
    out.append(f"rxe_probe_latency_seconds_bucket{lbl(le='+Inf', **labels)} {count}")
    out.append(f"rxe_probe_latency_seconds_sum{lbl(**labels)} {count * mean:.10g}")
    out.append(f"rxe_probe_latency_seconds_count{lbl(**labels)} {count}")


def ud_ping(fam, host, hosts, el):
    """ud_ping (docs/mesh.md, S5 metric contract): module `mesh` with per-peer series (peer labels:
    rack), module `mesh_racks` with aggregate_by: rack (no peer label). One ping per pair and second;
    pair host0 -> host1 loses 1 % (below the 2 % alert). RTT ~70 us network + ~30 us responder."""
    peers, pings, series, lost = ud_series(host, hosts, el)
    fam("rxe_ud_ping_sent_total", "counter", "Pings sent.", [(lbl(module=m, **pl), sent) for m, pl, sent, _ in series])
    fam("rxe_ud_ping_lost_total", "counter", "Pings without a pong in time.",
        [(lbl(module=m, **pl), lost[i]) for i, (m, pl, _, _) in enumerate(series)])
    fam("rxe_ud_ping_received_total", "counter", "Pongs received in time.",
        [(lbl(module=m, **pl), sent - lost[i]) for i, (m, pl, sent, _) in enumerate(series)])
    fam("rxe_ud_ping_send_errors_total", "counter", "Pings not sent.", [(lbl(module=m, **pl), 0) for m, pl, _, _ in series])
    fam("rxe_ud_ping_unresolved_total", "counter", "Ping slots of peers whose address was never fetched.",
        [(lbl(module=m, **pl), 0) for m, pl, _, _ in series])
    comps = {"total": 100e-6, "network": 70e-6, "responder": 30e-6}
    fam("rxe_ud_ping_seconds_total", "counter", "Sum of RTT components over valid samples.",
        [(lbl(module=m, component=c, **pl), (sent - lost[i]) * v) for i, (m, pl, sent, _) in enumerate(series)
         for c, v in comps.items()])
    fam("rxe_ud_ping_peers", "gauge", "Peers pinged.", [(lbl(module=m), len(peers)) for m in ("mesh", "mesh_racks")])
    fam("rxe_ud_ping_address_fetches_total", "counter", "Address fetches.",
        [(lbl(module=m, result=r), len(peers) if r == "ok" else 0) for m in ("mesh", "mesh_racks")
         for r in ("ok", "error")])
    fam("rxe_ud_ping_pongs_sent_total", "counter", "Pongs sent.", [(lbl(device="rxe0"), 2 * pings * len(peers))])
    fam("rxe_ud_ping_malformed_total", "counter", "Malformed.", [(lbl(device="rxe0"), 0)])
    fam("rxe_ud_ping_skipped_rounds_total", "counter", "Skipped rounds.", [(lbl(device="rxe0"), 0)])
    fam("rxe_ud_ping_not_allowed_total", "counter", "Pings not answered (ACL).", [(lbl(device="rxe0"), 0)])


def serve(host, hosts, ready):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404)
                return
            body = render(host, hosts).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ready.append(srv.server_address[1])
    srv.serve_forever()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--ports-file", required=True)
    ap.add_argument("--drop", action="append", default=[], help="leave out this metric family")
    args = ap.parse_args()
    DROP.update(args.drop)
    ports = []
    for h in range(args.hosts):
        ready = []
        threading.Thread(target=serve, args=(h, args.hosts, ready), daemon=True).start()
        while not ready:
            time.sleep(0.01)
        ports.append(ready[0])
    tmp = args.ports_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("".join(f"127.0.0.1:{p}\n" for p in ports))
    os.rename(tmp, args.ports_file)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
