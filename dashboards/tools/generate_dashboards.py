#!/usr/bin/env python3
"""Generates the Grafana dashboards dashboards/*.json (the committed files are its output).

  dashboards/tools/generate_dashboards.py            rewrite dashboards/*.json
  dashboards/tools/generate_dashboards.py --check    exit 1 if a committed file is out of date

Edit the panels here, not in the JSON: a test (`dashboards.generated`) fails when they differ.
Conventions (checked by check_dashboards.py): schemaVersion 37 (Grafana >= 9.1), fixed uids, a
`datasource` template variable used by every panel and variable, job -> instance -> ... chained
variables, $__rate_interval in every rate()/increase(), job/instance matchers in every selector,
a description on every panel. A panel whose query may legitimately return nothing says
"Empty when ..." in its description (check_dashboards.py --prometheus accepts an empty result then).
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from generated_files import write_or_check  # noqa: E402  (this directory)

OUT_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DS = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'job=~"$job",instance=~"$instance"'
PAIR_LINK = ("/d/rxe-pair/rxe-exporter-pair-drill-down?${__url_time_range}&var-datasource=${datasource}"
             "&var-job=${__data.fields.job}&var-instance=${__data.fields.instance}"
             "&var-module=${__data.fields.module}&var-peer=${__data.fields.peer}")
PORT_STATES = {"0": ("NOP", "red"), "1": ("DOWN", "red"), "2": ("INIT", "orange"), "3": ("ARMED", "orange"),
               "4": ("ACTIVE", "green"), "5": ("ACTIVE_DEFER", "orange")}
CHECK_STATES = {"0": ("pass", "green"), "1": ("warn", "orange"), "2": ("fail", "red")}
PHYS_STATES = {"1": ("Sleep", "orange"), "2": ("Polling", "orange"), "3": ("Disabled", "red"),
               "4": ("PortConfigurationTraining", "orange"), "5": ("LinkUp", "green"),
               "6": ("LinkErrorRecovery", "orange"), "7": ("PhyTest", "orange")}


# --- building blocks ----------------------------------------------------------------------------
def target(expr, legend="", ref="A", instant=False, fmt=None):
    t = {"datasource": DS, "editorMode": "code", "expr": expr, "refId": ref}
    if instant:
        t.update({"instant": True, "range": False, "format": fmt or "table", "legendFormat": legend or "__auto"})
    else:
        t.update({"range": True, "legendFormat": legend or "__auto"})
        if fmt:
            t["format"] = fmt
    return t


def value_mappings(states):
    return [{"type": "value", "options": {k: {"text": t, "color": c, "index": i}
                                          for i, (k, (t, c)) in enumerate(states.items())}}]


def thresholds(*steps):
    """steps: (value or None, color) pairs; the first value must be None (base)."""
    return {"mode": "absolute", "steps": [{"value": v, "color": c} for v, c in steps]}


class Dashboard:
    def __init__(self, uid, title, description, variables, tags=("rxe_exporter", "rdma")):
        self.uid, self.title, self.description = uid, title, description
        self.variables = variables
        self.tags = list(tags)
        self.panels = []
        self.x = self.y = 0
        self.row_h = 0

    def row(self, title):
        self._newline()
        self.panels.append({"type": "row", "title": title, "collapsed": False, "panels": [],
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}})
        self.y += 1

    def _newline(self):
        if self.x:
            self.y += self.row_h
        self.x = self.row_h = 0

    def add(self, panel, w=12, h=8):
        if self.x + w > 24:
            self._newline()
        panel["gridPos"] = {"h": h, "w": w, "x": self.x, "y": self.y}
        self.x += w
        self.row_h = max(self.row_h, h)
        self.panels.append(panel)

    def render(self):
        for i, p in enumerate(self.panels, start=1):
            p["id"] = i
        return {
            "__inputs": [],
            "__requires": [
                {"type": "grafana", "id": "grafana", "name": "Grafana", "version": "9.2.0"},
                {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"},
            ],
            "annotations": {"list": [{
                "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"}, "enable": True,
                "hide": True, "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts",
                "type": "dashboard"}]},
            "description": self.description,
            "editable": False,
            "fiscalYearStartMonth": 0,
            "graphTooltip": 1,
            "id": None,
            "links": [{"asDropdown": True, "icon": "external link", "includeVars": True, "keepTime": True,
                       "tags": ["rxe_exporter"], "targetBlank": False, "title": "rxe_exporter dashboards",
                       "tooltip": "", "type": "dashboards", "url": ""}],
            "liveNow": False,
            "panels": self.panels,
            "refresh": "1m",
            "schemaVersion": 37,
            "style": "dark",
            "tags": self.tags,
            "templating": {"list": self.variables},
            "time": {"from": "now-6h", "to": "now"},
            "timepicker": {},
            "timezone": "",
            "title": self.title,
            "uid": self.uid,
            "version": 1,
            "weekStart": "",
        }


def ds_var():
    return {"name": "datasource", "label": "Data Source", "type": "datasource", "query": "prometheus",
            "current": {}, "hide": 0, "includeAll": False, "multi": False, "options": [], "refresh": 1,
            "regex": "", "skipUrlSync": False}


def query_var(name, label, query, multi=True, include_all=True, hide=0):
    v = {"name": name, "label": label, "type": "query", "datasource": DS, "definition": query,
         "query": query,  # the string form: Grafana 9.1+ reads it (newer versions migrate it)
         "current": {}, "hide": hide, "includeAll": include_all, "multi": multi, "options": [],
         "refresh": 2, "regex": "", "skipUrlSync": False, "sort": 1}
    if include_all:
        v["allValue"] = ".+"
    return v


def job_instance_vars():
    return [
        ds_var(),
        query_var("job", "Job", "label_values(rxe_exporter_build_info, job)"),
        query_var("instance", "Instance", 'label_values(rxe_exporter_build_info{job=~"$job"}, instance)'),
    ]


def timeseries(title, description, targets, unit, stack=False, bars=False, min0=True, legend_calcs=("mean", "max"),
               interval=None, overrides=None, decimals=None):
    custom = {"drawStyle": "bars" if bars else "line", "lineWidth": 1, "fillOpacity": 30 if bars else 10,
              "showPoints": "never", "spanNulls": False, "lineInterpolation": "linear",
              "stacking": {"mode": "normal" if stack else "none", "group": "A"}}
    if min0:
        custom["axisSoftMin"] = 0
    defaults = {"unit": unit, "custom": custom, "color": {"mode": "palette-classic"}}
    if decimals is not None:
        defaults["decimals"] = decimals
    p = {"type": "timeseries", "title": title, "description": description, "datasource": DS,
         "targets": targets, "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
         "options": {"legend": {"displayMode": "table", "placement": "bottom", "showLegend": True,
                                "calcs": list(legend_calcs)},
                     "tooltip": {"mode": "multi", "sort": "desc"}}}
    if interval:
        p["interval"] = interval
    return p


def stat(title, description, targets, unit, steps=None, mappings=None, interval=None, color_mode="background",
         text_mode="auto", decimals=None):
    defaults = {"unit": unit, "mappings": mappings or [],
                "thresholds": steps or thresholds((None, "green")), "color": {"mode": "thresholds"}}
    if decimals is not None:
        defaults["decimals"] = decimals
    p = {"type": "stat", "title": title, "description": description, "datasource": DS, "targets": targets,
         "fieldConfig": {"defaults": defaults, "overrides": []},
         "options": {"colorMode": color_mode, "graphMode": "none", "justifyMode": "auto", "orientation": "auto",
                     "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                     "textMode": text_mode}}
    if interval:
        p["interval"] = interval
    return p


def table(title, description, targets, unit="short", transformations=None, overrides=None, steps=None,
          mappings=None, cell="color-text", interval=None, sort=None, links=None):
    defaults = {"unit": unit, "mappings": mappings or [], "thresholds": steps or thresholds((None, "green")),
                "custom": {"align": "auto", "displayMode": cell, "inspect": False},
                "color": {"mode": "thresholds"}}
    if links:
        defaults["links"] = links
    p = {"type": "table", "title": title, "description": description, "datasource": DS, "targets": targets,
         "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
         "options": {"showHeader": True, "footer": {"show": False, "reducer": ["sum"], "fields": ""},
                     "sortBy": sort or []},
         "transformations": transformations or []}
    if interval:
        p["interval"] = interval
    return p


def state_timeline(title, description, targets, states):
    return {"type": "state-timeline", "title": title, "description": description, "datasource": DS,
            "targets": targets,
            "fieldConfig": {"defaults": {"unit": "short", "mappings": value_mappings(states),
                                         "thresholds": thresholds((None, "green")),
                                         "color": {"mode": "thresholds"},
                                         "custom": {"fillOpacity": 70, "lineWidth": 0}},
                            "overrides": []},
            "options": {"showValue": "auto", "mergeValues": True, "alignValue": "left", "rowHeight": 0.9,
                        "legend": {"displayMode": "list", "placement": "bottom", "showLegend": False},
                        "tooltip": {"mode": "single", "sort": "none"}}}


def hide_columns(*names, rename=None, order=None):
    return {"id": "organize", "options": {"excludeByName": {n: True for n in names},
                                          "renameByName": rename or {}, "indexByName": order or {}}}


def matrix(row="instance", col="peer"):
    return {"id": "groupingToMatrix", "options": {"columnField": col, "rowField": row, "valueField": "Value"}}


def pair_link(title="Pair drill-down"):
    return [{"title": title, "url": PAIR_LINK}]


# --- Overview -----------------------------------------------------------------------------------
def overview():
    v = job_instance_vars() + [
        query_var("bw_module", "Bandwidth module",
                  'label_values(rxe_probe_bandwidth_bytes_per_second{job=~"$job",instance=~"$instance"}, module)',
                  multi=False, include_all=False),
        query_var("lat_module", "Latency module",
                  'label_values(rxe_probe_latency_median_seconds{job=~"$job",instance=~"$instance"}, module)',
                  multi=False, include_all=False),
    ]
    d = Dashboard("rxe-overview", "rxe_exporter / Overview",
                  "RDMA mesh: probe results between every prober (instance, rows) and peer (columns), the worst "
                  "and failing pairs, and how fresh the results are.", v)
    bw = f'{SEL},module=~"$bw_module"'
    lat = f'{SEL},module=~"$lat_module"'
    mesh_note = (" Rows: probing instance; columns: peer name from its config. Pairs never probed "
                 "successfully are blank.")

    d.row("Health")
    d.add(stat("Failing pairs", "Pairs (all modules) whose last probe failed, among pairs probed at least once "
               "(rxe_probe_duration_seconds is 0 until the first probe).",
               [target(f"sum((rxe_probe_success{{{SEL}}} == bool 0) and rxe_probe_duration_seconds{{{SEL}}} > 0)")],
               "short", thresholds((None, "green"), (1, "red"))), w=4, h=4)
    d.add(stat("Stale pairs", "Pairs without any completed probe in the last 15 minutes (as RxeProbeResultsStale).",
               [target(f"sum(increase(rxe_probes_total{{{SEL}}}[$__rate_interval]) == bool 0)")],
               "short", thresholds((None, "green"), (1, "orange")), interval="15m"), w=4, h=4)
    d.add(stat("Pairs probed", "Configured (module, peer) pairs across the selected instances.",
               [target(f"count(rxe_probe_success{{{SEL}}})")], "short", color_mode="value"), w=4, h=4)
    d.add(stat("Ports not ACTIVE", "RDMA ports whose state is not ACTIVE.",
               [target(f"sum(1 - rxe_port_active{{{SEL}}})")], "short",
               thresholds((None, "green"), (1, "red"))), w=4, h=4)
    d.add(stat("Exporters up", "Scraped rxe_exporter targets that are up / all targets.",
               [target(f"sum(up{{{SEL}}})", "up"), target(f"count(up{{{SEL}}})", "targets", ref="B")],
               "short", color_mode="value", text_mode="value_and_name"), w=4, h=4)
    d.add(stat("Probe failures (15m)", "Failed probes over all pairs in the last 15 minutes.",
               [target(f"sum(increase(rxe_probe_failures_total{{{SEL}}}[$__rate_interval]))")],
               "short", thresholds((None, "green"), (1, "orange")), interval="15m", decimals=0), w=4, h=4)

    d.row("Mesh")
    d.add(table("Latency matrix: median (last probe)",
                "One-way latency (perftest convention: RTT/2), t_typical of the last probe of the latency module."
                + mesh_note,
                [target(f"max by (instance, peer) (rxe_probe_latency_median_seconds{{{lat}}} > 0)", instant=True)],
                unit="s", transformations=[matrix()], cell="color-background",
                steps=thresholds((None, "green"), (0.0001, "yellow"), (0.001, "red"))), w=8, h=9)
    d.add(table("Latency matrix: p99 (last probe)",
                "99th percentile one-way latency of the last probe of the latency module." + mesh_note,
                [target(f"max by (instance, peer) (rxe_probe_latency_p99_seconds{{{lat}}} > 0)", instant=True)],
                unit="s", transformations=[matrix()], cell="color-background",
                steps=thresholds((None, "green"), (0.0005, "yellow"), (0.005, "red"))), w=8, h=9)
    d.add(table("Bandwidth matrix (last probe)",
                "Average bandwidth (perftest BW average) of the last probe of the bandwidth module." + mesh_note,
                [target(f"max by (instance, peer) (rxe_probe_bandwidth_bytes_per_second{{{bw}}} > 0)", instant=True)],
                unit="Bps", transformations=[matrix()], cell="color-background",
                steps=thresholds((None, "red"), (1e8, "yellow"), (5e8, "green"))), w=8, h=9)
    d.add(table("Last probe result matrix",
                "1 = the last probe of every module succeeded, 0 = at least one failed." + mesh_note,
                [target(f"min by (instance, peer) (rxe_probe_success{{{SEL}}})", instant=True)],
                unit="short", transformations=[matrix()], cell="color-background",
                mappings=value_mappings({"0": ("FAIL", "red"), "1": ("OK", "green")})), w=24, h=7)

    d.row("Problems")
    d.add(table("Failing pairs: failures by reason (last 15m)",
                "Pairs with failed probes in the last 15 minutes, by failure reason (rxe_probe_failures_total). "
                "Click a row for the pair drill-down. Empty when all probes succeed.",
                [target(f"sum by (job, instance, module, peer, reason) "
                        f"(increase(rxe_probe_failures_total{{{SEL}}}[$__rate_interval])) > 0", instant=True)],
                unit="short", interval="15m", links=pair_link(),
                transformations=[hide_columns("Time", rename={"Value": "failures"})],
                sort=[{"displayName": "failures", "desc": True}]), w=12, h=8)
    d.add(table("Worst pairs: latency p99 (last probe)",
                "The 10 pairs with the highest p99 latency in their last probe. Click a row for the pair drill-down.",
                [target(f"topk(10, rxe_probe_latency_p99_seconds{{{lat}}} > 0)", instant=True)],
                unit="s", links=pair_link(),
                transformations=[hide_columns("Time", "__name__", rename={"Value": "p99"})],
                sort=[{"displayName": "p99", "desc": True}]), w=6, h=8)
    d.add(table("Worst pairs: bandwidth (last probe)",
                "The 10 pairs with the lowest bandwidth in their last probe. Click a row for the pair drill-down.",
                [target(f"bottomk(10, rxe_probe_bandwidth_bytes_per_second{{{bw}}} > 0)", instant=True)],
                unit="Bps", links=pair_link(),
                transformations=[hide_columns("Time", "__name__", rename={"Value": "bandwidth"})],
                sort=[{"displayName": "bandwidth", "desc": False}]), w=6, h=8)

    d.row("Freshness and trends")
    d.add(table("Time since last successful probe",
                "Age of each pair's last successful probe (rxe_probe_last_success_timestamp_seconds). Pairs that "
                "never succeeded are left out (see 'Failing pairs').",
                [target(f"time() - (rxe_probe_last_success_timestamp_seconds{{{SEL}}} > 0)", instant=True)],
                unit="s", cell="color-background", links=pair_link(),
                steps=thresholds((None, "green"), (300, "yellow"), (900, "red")),
                transformations=[hide_columns("Time", rename={"Value": "age"})],
                sort=[{"displayName": "age", "desc": True}]), w=12, h=8)
    d.add(timeseries("Probes completed per minute",
                     "Completed probes (successful or not) per minute and instance/module.",
                     [target(f"sum by (instance, module) (rate(rxe_probes_total{{{SEL}}}[$__rate_interval])) * 60",
                             "{{instance}} {{module}}")], "short"), w=12, h=8)
    d.add(timeseries("Latency median by pair (last probe)", "t_typical of each latency probe over time.",
                     [target(f"rxe_probe_latency_median_seconds{{{lat}}} > 0", "{{instance}} → {{peer}}")], "s"),
          w=12, h=9)
    d.add(timeseries("Bandwidth by pair (last probe)", "BW average of each bandwidth probe over time.",
                     [target(f"rxe_probe_bandwidth_bytes_per_second{{{bw}}} > 0", "{{instance}} → {{peer}}")],
                     "Bps"), w=12, h=9)
    return d


# --- Pair drill-down ----------------------------------------------------------------------------
def pair():
    v = job_instance_vars() + [
        query_var("module", "Module", 'label_values(rxe_probes_total{job=~"$job",instance=~"$instance"}, module)'),
        query_var("peer", "Peer",
                  'label_values(rxe_probes_total{job=~"$job",instance=~"$instance",module=~"$module"}, peer)'),
    ]
    d = Dashboard("rxe-pair", "rxe_exporter / Pair drill-down",
                  "One prober → peer pair (select instance, module and peer): bandwidth, message rate, latency "
                  "distribution and percentiles, failures by reason and the rxe retries/sequence errors attributed "
                  "to its probes.", v)
    s = f'{SEL},module=~"$module",peer=~"$peer"'
    leg = "{{instance}} → {{peer}} {{module}}"

    d.row("Result")
    d.add(stat("Last probe", "Result of the last probe of each selected module/peer.",
               [target(f"rxe_probe_success{{{s}}}", "{{module}} → {{peer}}")], "short",
               mappings=value_mappings({"0": ("FAILED", "red"), "1": ("OK", "green")})), w=8, h=4)
    d.add(stat("Last success age", "Time since the last successful probe.",
               [target(f"time() - (rxe_probe_last_success_timestamp_seconds{{{s}}} > 0)", "{{module}} → {{peer}}")],
               "s", thresholds((None, "green"), (300, "yellow"), (900, "red"))), w=8, h=4)
    d.add(stat("Probe duration", "Wall-clock duration of the last probe (setup, traffic, teardown).",
               [target(f"rxe_probe_duration_seconds{{{s}}}", "{{module}} → {{peer}}")], "s",
               color_mode="value"), w=8, h=4)
    d.add(timeseries("Success ratio", "Fraction of probes that succeeded.",
                     [target(f"1 - sum by (instance, module, peer) (increase(rxe_probe_failures_total{{{s}}}"
                             f"[$__rate_interval])) / sum by (instance, module, peer) "
                             f"(increase(rxe_probes_total{{{s}}}[$__rate_interval]))", leg)],
                     "percentunit", interval="5m"), w=24, h=6)

    d.row("Bandwidth")
    d.add(timeseries("Bandwidth (last probe)", "perftest BW average of each bandwidth probe.",
                     [target(f"rxe_probe_bandwidth_bytes_per_second{{{s}}} > 0", leg)], "Bps"), w=8)
    d.add(timeseries("Message rate (last probe)", "Messages per second of each bandwidth probe (perftest MsgRate).",
                     [target(f"rxe_probe_message_rate_per_second{{{s}}} > 0", leg)], "ops"), w=8)
    d.add(timeseries("Probe traffic (average)",
                     "Bytes moved by the probes per second, averaged over time: the load the probes put on the "
                     "path (compare with prober.byte_budget_per_second).",
                     [target(f"sum by (instance, module, peer) (rate(rxe_probe_transferred_bytes_total{{{s}}}"
                             f"[$__rate_interval]))", leg)], "Bps"), w=8)

    d.row("Latency")
    d.add({"type": "heatmap", "title": "Latency distribution (histogram)",
           "description": "rxe_probe_latency_seconds: every latency sample of the selected probes, per bucket "
                          "(one-way latency, RTT/2).",
           "datasource": DS,
           "targets": [target(f"sum by (le) (rate(rxe_probe_latency_seconds_bucket{{{s}}}[$__rate_interval]))",
                              "{{le}}", fmt="heatmap")],
           "fieldConfig": {"defaults": {"unit": "s", "custom": {"hideFrom": {"legend": False, "tooltip": False,
                                                                             "viz": False},
                                                                "scaleDistribution": {"type": "linear"}}},
                           "overrides": []},
           "options": {"calculate": False, "cellGap": 1, "yAxis": {"axisPlacement": "left", "unit": "s"},
                       "rowsFrame": {"layout": "auto"},
                       "color": {"mode": "scheme", "scheme": "Oranges", "fill": "dark-orange", "scale": "exponential",
                                 "exponent": 0.5, "steps": 64, "reverse": False},
                       "cellValues": {"unit": "short"}, "filterValues": {"le": 1e-9},
                       "legend": {"show": True}, "showValue": "never",
                       "tooltip": {"show": True, "yHistogram": False},
                       "exemplars": {"color": "rgba(255,0,255,0.7)"}},
           "interval": "1m"}, w=12, h=9)
    pct = [target(f"histogram_quantile({q}, sum by (le, instance, module, peer) "
                  f"(rate(rxe_probe_latency_seconds_bucket{{{s}}}[$__rate_interval])))", f"p{label} {leg}", ref=ref)
           for q, label, ref in ((0.5, "50", "A"), (0.9, "90", "B"), (0.99, "99", "C"), (0.999, "99.9", "D"))]
    pct.append(target(f"sum by (instance, module, peer) (rate(rxe_probe_latency_seconds_sum{{{s}}}[$__rate_interval]))"
                      f" / sum by (instance, module, peer) (rate(rxe_probe_latency_seconds_count{{{s}}}"
                      f"[$__rate_interval]))", f"mean {leg}", ref="E"))
    d.add(timeseries("Latency percentiles (histogram)",
                     "Percentiles interpolated from the histogram buckets (coarser than the per-probe statistics "
                     "but aggregated over every sample), and the mean.", pct, "s", interval="1m"), w=12, h=9)
    stats = [target(f"rxe_probe_latency_{n}_seconds{{{s}}} > 0", f"{n} {leg}", ref=chr(65 + i))
             for i, n in enumerate(("min", "median", "mean", "p99", "p999", "max"))]
    d.add(timeseries("Latency statistics (last probe)",
                     "perftest-style statistics of each probe: min, t_typical (median), average, p99, p99.9, max.",
                     stats, "s"), w=12, h=9)
    d.add(timeseries("Latency standard deviation (last probe)", "Standard deviation of the last probe's samples.",
                     [target(f"rxe_probe_latency_stddev_seconds{{{s}}}", leg)], "s"), w=12, h=9)

    d.row("Failures and attributed counters")
    d.add(timeseries("Failures by reason", "Failed probes by reason (connect_timeout, wc_error, no_gid, ...).",
                     [target(f"sum by (reason) (increase(rxe_probe_failures_total{{{s}}}[$__rate_interval]))",
                             "{{reason}}")], "short", bars=True, stack=True, legend_calcs=("sum",), decimals=0), w=12)
    d.add(timeseries("Retries and sequence errors attributed to the probes",
                     "rxe hw counter deltas observed while a probe of this pair ran alone on its device "
                     "(completer retries, sequence-error NAKs, out-of-sequence, duplicates, RNR).",
                     [target(f"sum by (counter) (increase(rxe_probe_attributed_hw_stat_total{{{s}}}"
                             f"[$__rate_interval]))", "{{counter}}")], "short", bars=True, stack=True,
                     legend_calcs=("sum",), decimals=0), w=12)
    return d


# --- Ports --------------------------------------------------------------------------------------
def ports():
    v = job_instance_vars() + [
        query_var("device", "Device", 'label_values(rxe_port_info{job=~"$job",instance=~"$instance"}, device)'),
    ]
    d = Dashboard("rxe-ports", "rxe_exporter / Ports",
                  "RDMA ports: state and rate, rxe hw counters (packets, retries, sequence errors, RNR, duplicates), "
                  "the netdev under each port, the host's softirq cost and per-device resource counts.", v)
    s = f'{SEL},device=~"$device"'
    leg = "{{instance}} {{device}}/{{port}}"

    def rates(title, desc, metrics, unit="pps", w=8):
        ts = [target(f"rate({m}{{{s}}}[$__rate_interval])", f"{lbl} {leg}", ref=chr(65 + i))
              for i, (m, lbl) in enumerate(metrics)]
        return timeseries(title, desc, ts, unit), w

    d.row("State")
    d.add(stat("Ports ACTIVE", "Ports in state ACTIVE.", [target(f"sum(rxe_port_active{{{s}}})")], "short",
               color_mode="value"), w=4, h=4)
    d.add(stat("Ports not ACTIVE", "Ports in any other state.", [target(f"sum(1 - rxe_port_active{{{s}}})")],
               "short", thresholds((None, "green"), (1, "red"))), w=4, h=4)
    d.add(stat("Netdevs down", "Netdevs under RDMA ports whose operstate is not up.",
               [target(f"sum(1 - rxe_netdev_up{{{s}}})")], "short", thresholds((None, "green"), (1, "red"))),
          w=4, h=4)
    d.add(stat("Link downed events (1h)", "rxe link_downed counter increase over the last hour.",
               [target(f"sum(increase(rxe_port_link_downed_total{{{s}}}[$__rate_interval]))")], "short",
               thresholds((None, "green"), (1, "orange")), interval="1h", decimals=0), w=4, h=4)
    d.add(stat("Port rate", "Port data rate reported by the device (sysfs rate).",
               [target(f"min(rxe_port_rate_bytes_per_second{{{s}}})", "min"),
                target(f"max(rxe_port_rate_bytes_per_second{{{s}}})", "max", ref="B")], "Bps",
               color_mode="value", text_mode="value_and_name"), w=8, h=4)
    d.add(table("Ports", "Port state, physical state, link layer and netdev, with the netdev MTU.",
                [target(f"max by (instance, device, port) (rxe_port_state{{{s}}})", instant=True),
                 target(f"max by (instance, device, port) (rxe_port_physical_state{{{s}}})", instant=True, ref="B"),
                 target(f"max by (instance, device, port, link_layer, netdev) (rxe_port_info{{{s}}})", instant=True,
                        ref="C"),
                 target(f"max by (instance, device, port) (rxe_netdev_mtu_bytes{{{s}}})", instant=True, ref="D")],
                transformations=[{"id": "merge", "options": {}},
                                 hide_columns("Time", "Value #C",
                                              rename={"Value #A": "state", "Value #B": "physical state",
                                                      "Value #D": "netdev MTU"})],
                overrides=[
                    {"matcher": {"id": "byName", "options": "Value #A"},
                     "properties": [{"id": "mappings", "value": value_mappings(PORT_STATES)},
                                    {"id": "custom.displayMode", "value": "color-background"}]},
                    {"matcher": {"id": "byName", "options": "Value #B"},
                     "properties": [{"id": "mappings", "value": value_mappings(PHYS_STATES)},
                                    {"id": "custom.displayMode", "value": "color-background"}]},
                    {"matcher": {"id": "byName", "options": "Value #D"},
                     "properties": [{"id": "unit", "value": "bytes"}]}]), w=12, h=8)
    d.add(state_timeline("Port state over time", "IB port state per port.",
                         [target(f"rxe_port_state{{{s}}}", leg)], PORT_STATES), w=12, h=8)

    d.row("rxe counters (per second)")
    d.add(*rates("Packets", "rxe sent_pkts / rcvd_pkts.",
                 [("rxe_port_sent_packets_total", "sent"), ("rxe_port_received_packets_total", "received")]))
    d.add(*rates("RDMA operations", "rxe rdma_sends / rdma_recvs.",
                 [("rxe_port_rdma_sends_total", "sends"), ("rxe_port_rdma_receives_total", "receives")], "ops"))
    d.add(*rates("Retries", "Requester retransmissions (completer_retry_err) and QPs that exhausted their retries "
                            "(retry_exceeded_err).",
                 [("rxe_port_completer_retries_total", "retries"),
                  ("rxe_port_retry_exceeded_errors_total", "retry exceeded")], "ops"))
    d.add(*rates("Sequence errors", "Sequence-error NAKs received (requester) and out-of-sequence requests "
                                    "(responder): packet loss or reordering.",
                 [("rxe_port_sequence_error_naks_received_total", "seq-err NAKs received"),
                  ("rxe_port_out_of_sequence_requests_total", "out-of-sequence requests")], "ops"))
    d.add(*rates("RNR", "Receiver-not-ready NAKs sent and received, and QPs that exhausted their RNR retries.",
                 [("rxe_port_rnr_naks_received_total", "RNR NAKs received"),
                  ("rxe_port_rnr_naks_sent_total", "RNR NAKs sent"),
                  ("rxe_port_rnr_retry_exceeded_errors_total", "RNR retry exceeded")], "ops"))
    d.add(*rates("Duplicates and errors", "Duplicate requests (responder saw a retransmission), deferred ACKs and "
                                          "send errors.",
                 [("rxe_port_duplicate_requests_total", "duplicate requests"),
                  ("rxe_port_ack_deferred_total", "ACKs deferred"),
                  ("rxe_port_send_errors_total", "send errors")], "ops"))

    d.row("Netdev (rxe has no byte counters of its own)")
    d.add(*rates("Netdev bytes", "Bytes received/transmitted by the netdev under each RDMA port (all traffic, "
                                 "RoCE included).",
                 [("rxe_netdev_receive_bytes_total", "rx"), ("rxe_netdev_transmit_bytes_total", "tx")], "Bps"))
    d.add(*rates("Netdev packets", "Packets received/transmitted by the netdev.",
                 [("rxe_netdev_receive_packets_total", "rx"), ("rxe_netdev_transmit_packets_total", "tx")]))
    d.add(*rates("Netdev drops and errors", "Receive/transmit drops and errors of the netdev: RoCE has no "
                                            "congestion control on rxe, drops become retransmissions.",
                 [("rxe_netdev_receive_drops_total", "rx drops"), ("rxe_netdev_transmit_drops_total", "tx drops"),
                  ("rxe_netdev_receive_errors_total", "rx errors"), ("rxe_netdev_transmit_errors_total", "tx errors")]))

    d.row("Host cost (Soft-RoCE runs in softirq context)")
    d.add(timeseries("Busiest core: softirq share",
                     "Share of time the busiest CPU spent in softirq between scrapes "
                     "(rxe_host_softirq_busiest_cpu_ratio). Near 100 % means one hot core limits Soft-RoCE "
                     "bandwidth and latency.",
                     [target(f"max by (instance) (rxe_host_softirq_busiest_cpu_ratio{{{SEL}}})", "{{instance}}")],
                     "percentunit", legend_calcs=("mean", "max")), w=8)
    d.add(timeseries("Softirq time per CPU", "CPU time spent in softirq per CPU (/proc/stat), as a share of "
                                             "that CPU.",
                     [target(f"rate(rxe_host_softirq_seconds_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} cpu{{cpu}}")], "percentunit", legend_calcs=("mean", "max")), w=8)
    d.add(timeseries("NET_RX / NET_TX softirqs per CPU", "Network softirqs handled per CPU (/proc/softirqs): "
                                                         "shows which core takes the NIC's receive work.",
                     [target(f"rate(rxe_host_softirqs_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} cpu{{cpu}} {{softirq}}")], "ops", legend_calcs=("mean", "max")), w=8)

    d.row("Setup checks (rxe_exporter doctor)")
    d.add(table("Setup checks", "The cheap `rxe_exporter doctor` checks as the daemon last evaluated them "
                                "(rxe_doctor_check_status, at most once a minute): rdma_rxe module, device, port "
                                "state, netdev MTU vs RoCE MTU, RoCE v2 GID, shared netdev, memlock, CPU governor. "
                                "Run `rxe_exporter doctor` on the host for the evidence and the fix.",
                [target(f"max by (instance, check, device, port) (rxe_doctor_check_status{{{SEL}}})",
                        instant=True)],
                transformations=[hide_columns("Time", rename={"Value": "status"})],
                overrides=[{"matcher": {"id": "byName", "options": "Value"},
                            "properties": [{"id": "mappings", "value": value_mappings(CHECK_STATES)},
                                           {"id": "custom.displayMode", "value": "color-background"}]}]),
          w=12, h=8)
    d.add(state_timeline("Setup checks over time",
                         "Each doctor check's status per host over time: when a misconfiguration appeared.",
                         [target(f"max by (instance, check) (rxe_doctor_check_status{{{SEL}}})",
                                 "{{instance}} {{check}}")], CHECK_STATES), w=12, h=8)

    d.row("Resources and GIDs")
    d.add(timeseries("Resources by type", "RDMA netlink resource counts per device (QPs, CQs, MRs, PDs, ...).",
                     [target(f"rxe_device_resources{{{s}}}", "{{instance}} {{device}} {{resource}}")], "short",
                     legend_calcs=("lastNotNull", "max")), w=12)
    d.add(table("Devices", "RDMA devices: driver, node GUID, firmware, node type (rxe_device_info).",
                [target(f"rxe_device_info{{{s}}}", instant=True)],
                transformations=[hide_columns("Time", "Value", "__name__", "job")]), w=24, h=5)
    d.add(table("RoCE GIDs", "GID table entries (bounded by collectors.max_gids_per_port): check the GID index "
                             "and type (RoCE v2) used by the probes.",
                [target(f"rxe_port_gid_info{{{s}}}", instant=True)],
                transformations=[hide_columns("Time", "Value", "__name__", "job")]), w=12)
    return d


# --- Exporter health ----------------------------------------------------------------------------
def exporter():
    d = Dashboard("rxe-exporter-health", "rxe_exporter / Exporter health",
                  "The exporter itself: scrape and collector health, its process (CPU, memory, file "
                  "descriptors, uptime), configuration reloads, probe scheduling and budget, and the responder.", job_instance_vars())
    leg = "{{instance}}"

    d.row("Scrapes")
    d.add(stat("Targets up", "Prometheus' up for each target.", [target(f"up{{{SEL}}}", leg)], "short",
               mappings=value_mappings({"0": ("DOWN", "red"), "1": ("UP", "green")})), w=12, h=4)
    d.add(table("Build info", "Version, revision and compiler of each exporter.",
                [target(f"rxe_exporter_build_info{{{SEL}}}", instant=True)],
                transformations=[hide_columns("Time", "Value", "__name__")]), w=12, h=4)
    d.add(timeseries("Scrape duration", "How long Prometheus' scrape of /metrics took (scrape_duration_seconds).",
                     [target(f"scrape_duration_seconds{{{SEL}}}", leg)], "s"), w=12)
    d.add(timeseries("Samples per scrape", "Samples in each scrape (scrape_samples_scraped): grows with ports, "
                                           "GIDs and probed pairs.",
                     [target(f"scrape_samples_scraped{{{SEL}}}", leg)], "short"), w=12)
    d.add({"type": "state-timeline", "title": "Collector success",
           "description": "rxe_exporter_scrape_collector_success per collector (0 = the collector failed).",
           "datasource": DS,
           "targets": [target(f"rxe_exporter_scrape_collector_success{{{SEL}}}", "{{instance}} {{collector}}")],
           "fieldConfig": {"defaults": {"unit": "short",
                                        "mappings": value_mappings({"0": ("FAILED", "red"), "1": ("OK", "green")}),
                                        "thresholds": thresholds((None, "green")), "color": {"mode": "thresholds"},
                                        "custom": {"fillOpacity": 70, "lineWidth": 0}},
                           "overrides": []},
           "options": {"showValue": "never", "mergeValues": True, "alignValue": "left", "rowHeight": 0.9,
                       "legend": {"displayMode": "list", "placement": "bottom", "showLegend": False},
                       "tooltip": {"mode": "single", "sort": "none"}}}, w=12)
    d.add(timeseries("Collector duration", "rxe_exporter_scrape_collector_duration_seconds per collector.",
                     [target(f"rxe_exporter_scrape_collector_duration_seconds{{{SEL}}}",
                             "{{instance}} {{collector}}")], "s"), w=12)

    d.row("Process")
    d.add(timeseries("CPU usage", "CPU time used by the exporter process (rate of process_cpu_seconds_total): "
                                  "1 = one core busy. Probes and scrapes are the main users.",
                     [target(f"rate(process_cpu_seconds_total{{{SEL}}}[$__rate_interval])", leg)], "percentunit"),
          w=8)
    d.add(timeseries("Memory", "Resident set size (process_resident_memory_bytes) and virtual memory "
                               "(process_virtual_memory_bytes) of the exporter. Registered probe buffers are "
                               "resident while a probe or a responder session runs.",
                     [target(f"process_resident_memory_bytes{{{SEL}}}", "{{instance}} resident"),
                      target(f"process_virtual_memory_bytes{{{SEL}}}", "{{instance}} virtual", ref="B")], "bytes"), w=8)
    d.add(timeseries("File descriptors", "Open file descriptors as a share of the limit "
                                         "(process_open_fds / process_max_fds; the unit sets LimitNOFILE=8192).",
                     [target(f"process_open_fds{{{SEL}}} / process_max_fds{{{SEL}}}", leg)], "percentunit"), w=4)
    d.add(stat("Uptime", "Time since the exporter process started (process_start_time_seconds).",
               [target(f"time() - process_start_time_seconds{{{SEL}}}", leg)], "s", color_mode="value"), w=4)

    d.row("Configuration")
    d.add(stat("Last reload", "rxe_exporter_config_last_reload_successful.",
               [target(f"rxe_exporter_config_last_reload_successful{{{SEL}}}", leg)], "short",
               mappings=value_mappings({"0": ("FAILED", "red"), "1": ("OK", "green")})), w=12, h=4)
    d.add(stat("Configuration age", "Time since the last successful (re)load of the configuration.",
               [target(f"time() - rxe_exporter_config_last_reload_success_timestamp_seconds{{{SEL}}}", leg)], "s",
               color_mode="value"), w=12, h=4)

    d.row("Probe scheduling and budget")
    d.add(timeseries("Probes per minute", "Completed probes per minute and instance.",
                     [target(f"sum by (instance) (rate(rxe_probes_total{{{SEL}}}[$__rate_interval])) * 60", leg)],
                     "short"), w=8)
    d.add(timeseries("Probe traffic (budget use)",
                     "Bytes moved by probes per second and instance; the budget is prober.byte_budget_per_second "
                     "in the configuration.",
                     [target(f"sum by (instance) (rate(rxe_probe_transferred_bytes_total{{{SEL}}}"
                             f"[$__rate_interval]))", leg)], "Bps"), w=8)
    d.add(timeseries("Deferred probes", "Probes postponed by the scheduler, by reason: budget "
                                        "(byte_budget_per_second) or concurrency (max_concurrent, "
                                        "max_bandwidth_per_device).",
                     [target(f"sum by (instance, reason) (rate(rxe_prober_deferred_total{{{SEL}}}[$__rate_interval]))"
                             f" * 60", "{{instance}} {{reason}}")], "short"), w=8)

    d.row("Responder")
    d.add(timeseries("Responder sessions per minute", "Probe sessions served for peers. Empty when the responder is disabled.",
                     [target(f"sum by (instance) (rate(rxe_responder_sessions_total{{{SEL}}}[$__rate_interval])) * 60",
                             leg)], "short"), w=8)
    d.add(timeseries("Active responder sessions", "Sessions being served now (bounded by responder.max_sessions). "
                                                     "Empty when the responder is disabled.",
                     [target(f"rxe_responder_active_sessions{{{SEL}}}", leg)], "short"), w=8)
    d.add(timeseries("Responder rejections", "Refused sessions by reason (not_allowed, auth_failed, busy, ...). Empty when "
                                             "the responder is disabled.",
                     [target(f"sum by (instance, reason) (increase(rxe_responder_rejections_total{{{SEL}}}"
                             f"[$__rate_interval]))", "{{instance}} {{reason}}")], "short", bars=True, stack=True,
                     legend_calcs=("sum",), decimals=0), w=8)
    return d


# --- UD ping mesh -------------------------------------------------------------------------------
def textbox_var(name, label, default, description):
    return {"name": name, "label": label, "type": "textbox", "query": default, "description": description,
            "current": {"selected": False, "text": default, "value": default},
            "options": [{"selected": True, "text": default, "value": default}], "hide": 0, "skipUrlSync": False}


def mesh():
    v = job_instance_vars() + [
        query_var("module", "Module",
                  'label_values(rxe_ud_ping_sent_total{job=~"$job",instance=~"$instance"}, module)',
                  multi=False, include_all=False),
        textbox_var("col", "Columns (peer label)", "peer",
                    "Label of the matrix columns: `peer` (one column per peer) or a peer label such as "
                    "`rack`: per-peer series are summed per value, a module with `aggregate_by: rack` "
                    "only has that label."),
    ]
    d = Dashboard("rxe-mesh", "rxe_exporter / UD ping mesh",
                  "ud_ping mesh (docs/mesh.md): loss and network RTT between every source (instance, rows) and "
                  "target (peer or the peer label chosen in Columns), the RTT split into network and responder "
                  "delay, the lossiest pairs and peers unreachable from many sources.", v)
    m = f'{SEL},module=~"$module"'
    by = "instance, $col"

    def loss(by_labels):  # as pair:rxe_ud_ping_loss:ratio5m: an unresolved slot is sent and lost
        def plus_unresolved(name):
            inc = f"increase({name}{{{m}}}[$__rate_interval])"
            return f"{inc} + (increase(rxe_ud_ping_unresolved_total{{{m}}}[$__rate_interval]) or {inc} * 0)"
        return (f"sum by ({by_labels}) ({plus_unresolved('rxe_ud_ping_lost_total')})"
                f" / sum by ({by_labels}) ({plus_unresolved('rxe_ud_ping_sent_total')})")

    def target_label(expr):  # the column label under a fixed name (transformations take no variables)
        return f'label_replace({expr}, "target", "$1", "$col", "(.*)")'

    def rtt(q, by_labels):
        return (f"histogram_quantile({q}, sum by ({by_labels}) "
                f"(rate(rxe_probe_latency_seconds_bucket{{{m}}}[$__rate_interval])))")

    loss_steps = thresholds((None, "green"), (0.001, "yellow"), (0.02, "orange"), (0.9, "red"))
    rtt_steps = thresholds((None, "green"), (0.0002, "yellow"), (0.001, "red"))
    cells = (" Rows: the pinging instance; columns: the value of the Columns label (the peer's name by "
             "default). Empty cells: no pings in the window.")

    d.row("Health")
    d.add(stat("Peers pinged", "Peers each selected instance pings in the module after subset selection "
                               "(rxe_ud_ping_peers), summed over instances: the number of pairs.",
               [target(f"sum(rxe_ud_ping_peers{{{m}}})")], "short", color_mode="value"), w=4, h=4)
    d.add(stat("Pings per second", "Pings sent per second by the selected instances (each pair once per "
                                   "interval).",
               [target(f"sum(rate(rxe_ud_ping_sent_total{{{m}}}[$__rate_interval]))")], "ops",
               color_mode="value"), w=4, h=4)
    d.add(stat("Mesh loss (5m)", "Lost / sent pings over all selected pairs in the last 5 minutes.",
               [target(loss("module"))], "percentunit", loss_steps, interval="5m", decimals=2), w=4, h=4)
    d.add(stat("Lossy pairs (> 2 %, 5m)", "Pairs (instance × Columns label) that lost more than 2 % of their "
                                          "pings in the last 5 minutes (the threshold of RxeUdPingPairLoss).",
               [target(f"count(({loss(by)}) > 0.02) or vector(0)")], "short",
               thresholds((None, "green"), (1, "orange")), interval="5m"), w=4, h=4)
    d.add(stat("Median network RTT", "Median network RTT (total minus the responder's delay) over all selected "
                                     "pairs, from rxe_probe_latency_seconds.",
               [target(rtt(0.5, "le"))], "s", rtt_steps, color_mode="value"), w=4, h=4)
    d.add(stat("Address fetch errors (15m)", "Failed fetches of peers' UD addresses (GID, QPN, Q_Key) over "
                                             "the control protocol in the last 15 minutes: a peer's control "
                                             "port does not answer.",
               [target(f'sum(increase(rxe_ud_ping_address_fetches_total{{{m},result="error"}}'
                       f"[$__rate_interval]))")], "short", thresholds((None, "green"), (1, "orange")),
               interval="15m", decimals=0), w=4, h=4)

    d.row("Matrix")
    d.add(table("Loss matrix (5m)", "Lost / sent pings per source × target over the last 5 minutes." + cells,
                [target(target_label(loss(by)), instant=True)], unit="percentunit",
                transformations=[matrix(col="target")], cell="color-background", steps=loss_steps,
                interval="5m"), w=12, h=10)
    d.add(table("Network RTT matrix: median (5m)", "Median network RTT (total minus responder delay) per "
                                                   "source × target over the last 5 minutes." + cells,
                [target(target_label(rtt(0.5, by + ", le")), instant=True)], unit="s",
                transformations=[matrix(col="target")], cell="color-background", steps=rtt_steps,
                interval="5m"), w=12, h=10)
    d.add(table("Network RTT matrix: p99 (5m)", "99th percentile network RTT per source × target over the last "
                                                "5 minutes (histogram buckets: coarse above 100 µs)." + cells,
                [target(target_label(rtt(0.99, by + ", le")), instant=True)], unit="s",
                transformations=[matrix(col="target")], cell="color-background",
                steps=thresholds((None, "green"), (0.0005, "yellow"), (0.005, "red")), interval="5m"), w=12, h=10)
    d.add(table("Responder delay matrix: mean (5m)",
                "Mean time the target's exporter held each ping before answering (reception to pong "
                "send), per source × target: high values mean a busy target host, not the network." + cells,
                [target(target_label(
                    f'sum by ({by}) (rate(rxe_ud_ping_seconds_total{{{m},component="responder"}}[$__rate_interval]))'
                    f" / sum by ({by}) (rate(rxe_probe_latency_seconds_count{{{m}}}[$__rate_interval]))"),
                    instant=True)], unit="s", transformations=[matrix(col="target")], cell="color-background",
                steps=thresholds((None, "green"), (0.0001, "yellow"), (0.001, "red")), interval="5m"), w=12, h=10)

    d.row("RTT: network vs responder")
    d.add(timeseries("Mean RTT split", "Mean per valid sample over the selected pairs: total RTT measured by the "
                                       "source, the target's responder delay and the network RTT (total minus "
                                       "responder delay).",
                     [target(f"sum by (component) (rate(rxe_ud_ping_seconds_total{{{m}}}[$__rate_interval]))"
                             f" / ignoring (component) group_left "
                             f"sum(rate(rxe_probe_latency_seconds_count{{{m}}}[$__rate_interval]))",
                             "{{component}}")], "s"), w=12)
    d.add(timeseries("Network RTT percentiles", "Median and 99th percentile network RTT over all selected "
                                                "pairs (rxe_probe_latency_seconds).",
                     [target(rtt(0.5, "le"), "p50"), target(rtt(0.99, "le"), "p99", ref="B")], "s"), w=12)
    d.add(table("RTT split per pair (mean, 5m)",
                "Mean total RTT, network RTT and responder delay of each pair over the last 5 minutes.",
                [target(f'label_join({target_label(f"sum by ({by}, component) (rate(rxe_ud_ping_seconds_total{{{m}}}[$__rate_interval])) / ignoring (component) group_left sum by ({by}) (rate(rxe_probe_latency_seconds_count{{{m}}}[$__rate_interval]))")}, '
                        f'"pair", " → ", "instance", "target")', instant=True)],
                unit="s", transformations=[matrix(row="pair", col="component")], interval="5m"), w=24, h=8)

    d.row("Worst pairs and unreachable peers")
    d.add(table("Top lossy pairs (5m)", "The 20 pairs with the highest loss ratio over the last 5 minutes, "
                                        "worst first.",
                [target(f"topk(20, max by (instance, target) ({target_label(loss(by))}))", instant=True)], unit="percentunit",
                transformations=[hide_columns("Time", rename={"Value": "loss", "instance": "source"},
                                              order={"instance": 0, "target": 1, "Value": 2})],
                cell="color-background", steps=loss_steps, interval="5m",
                sort=[{"displayName": "loss", "desc": True}]), w=12, h=9)
    d.add(table("Targets unreachable from many sources (5m)",
                "Targets (Columns label) to which sources lose at least 90 % of their pings in the last 5 "
                "minutes: how many sources, out of how many that ping the target. RxeUdPingPeerUnreachable fires "
                "for a peer when at least 2 sources and at least half of them do, for 5 minutes. Empty when no "
                "source loses 90 % of its pings to any target.",
                [target(f"count by (target) ({target_label(loss(by))} >= 0.9)", instant=True),
                 target(f"count by (target) ({target_label(loss(by))} >= 0) and on (target) "
                        f"count by (target) ({target_label(loss(by))} >= 0.9)", ref="B", instant=True)],
                transformations=[{"id": "merge", "options": {}},
                                 hide_columns("Time", rename={"Value #A": "sources losing ≥ 90 %",
                                                                        "Value #B": "sources pinging"})],
                interval="5m", sort=[{"displayName": "sources losing ≥ 90 %", "desc": True}]), w=12, h=9)
    d.add(timeseries("Loss ratio of the 10 worst pairs", "Loss ratio over time of the pairs that are worst at "
                                                          "each point in time.",
                     [target(f"topk(10, {target_label(loss(by))})", "{{instance}} → {{target}}")], "percentunit",
                     legend_calcs=("mean", "max"), interval="1m"), w=24)

    d.row("Pinger and responder (per device)")
    d.add(timeseries("Send errors and address fetch errors",
                     "Pings that could not be posted or failed at send completion (not network loss) and failed "
                     "peer address fetches, per instance.",
                     [target(f"sum by (instance) (rate(rxe_ud_ping_send_errors_total{{{m}}}[$__rate_interval]))",
                             "{{instance}} send errors"),
                      target(f'sum by (instance) (rate(rxe_ud_ping_address_fetches_total{{{m},result="error"}}'
                             f"[$__rate_interval]))", "{{instance}} address fetch errors", ref="B")], "ops"), w=8)
    d.add(timeseries("Pongs sent", "Pings of other hosts answered per second by each device's UD endpoint "
                                   "(rxe_ud_ping_pongs_sent_total).",
                     [target(f"rate(rxe_ud_ping_pongs_sent_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} {{device}}")], "ops"), w=8)
    d.add(timeseries("Malformed, not allowed, skipped rounds",
                     "Received packets that were not ud_ping packets of this version, pings left unanswered because "
                     "their source is not a peer address or in responder.allowed_cidrs, and rounds the device's "
                     "ping loop fell more than one interval behind (an overloaded host): all should be 0.",
                     [target(f"rate(rxe_ud_ping_malformed_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} {{device}} malformed"),
                      target(f"rate(rxe_ud_ping_skipped_rounds_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} {{device}} skipped rounds", ref="B"),
                      target(f"rate(rxe_ud_ping_not_allowed_total{{{SEL}}}[$__rate_interval])",
                             "{{instance}} {{device}} not allowed", ref="C")], "ops"), w=8)
    return d


DASHBOARDS = {"rxe-overview.json": overview, "rxe-pair.json": pair, "rxe-ports.json": ports,
              "rxe-exporter-health.json": exporter, "rxe-mesh.json": mesh}


def render(fn):
    return json.dumps(fn().render(), indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only compare with the committed files")
    ap.add_argument("--out", default=OUT_DIR, help="output directory (default: dashboards/)")
    args = ap.parse_args()
    outputs = [(os.path.join(args.out, name), render(fn)) for name, fn in DASHBOARDS.items()]
    return write_or_check(outputs, args.check, "generate_dashboards.py")


if __name__ == "__main__":
    sys.exit(main())
