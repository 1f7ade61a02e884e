#!/usr/bin/env python3
"""Checks the Grafana dashboards without a Grafana server (python3 with python3-yaml).

  check_dashboards.py [--dashboards 'dashboards/*.json'] [--rules 'dashboards/rules/*.yml']
                      [--promtool promtool] [--prometheus http://127.0.0.1:9090]

1. Structure and conventions (a re-implementation of the dashboard-linter rules that matter
   here): schemaVersion >= 37, unique fixed uids and titles, not editable, one `datasource`
   variable (type datasource, prometheus) used by every panel, target and query variable,
   multi-value job/instance variables with allValue ".+" chained job -> instance -> the rest,
   every variable used, refresh on time change, every panel with title, description, unit and
   at least one query, no overlapping panels, data links to existing dashboards. Textbox, custom
   and constant variables (e.g. a label name for `by (...)`) need a default value; the checks
   substitute that value (a label name cannot be `.+`).
2. PromQL conventions: every selector matches job=~"$job" and instance=~"$instance", every
   rate/irate/increase range is [$__rate_interval] (no hard-coded windows at all), counters
   (_total, _bucket, _sum, _count) only inside rate/irate/increase.
3. Syntax: every panel and variable query, after substituting the Grafana variables, and every
   rule expression from --rules goes into a throwaway rules file checked by `promtool check rules`.
4. With --prometheus URL: every substituted panel/variable query runs against that server
   (/api/v1/query) and must return data (series whose value is NaN do not count: they draw
   nothing); panels whose description says "Empty when ..." may be
   empty. Rule expressions must evaluate without error (baselines need days of history, so an
   empty result is only reported). Dead panels are listed and make the check fail.
   Variables are substituted twice: (a) the dashboard's default view (multi-value variables at
   All = .+, single-value ones at their first value), (b) real label values: each variable's
   label_values() query is run against the server, chained in order (job -> instance -> ...),
   and every panel query must return data for at least one combination of single real values
   (a bandwidth panel is empty for a latency module, so one combination is not enough); the
   first combination that has data is printed with -v.
   --strict-empty: "Empty when ..." panels must return data as well, except those named by
   --allow-empty 'TITLE=REASON' (an explicit, justified allow-list).
   --require-rule-data: every recording rule must have recorded data (its record name queried)
   and its expression must return data (except those named by --allow-empty-rule 'RECORD=REASON',
   e.g. a count of unreachable peers on a healthy mesh); alert expressions must evaluate without error.
Exit status 1 on any problem.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import yaml  # python3-yaml

DS_UID = "${datasource}"
PANEL_TYPES = {"timeseries", "stat", "table", "heatmap", "state-timeline", "bargauge", "gauge", "row"}
COUNTER_SUFFIXES = ("_total", "_bucket", "_sum", "_count")
RATE_FUNCS = {"rate", "irate", "increase"}
LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
OP_KEYWORDS = {"and", "or", "unless", "bool", "offset", "atan2"}
NUMBER_WORDS = {"inf", "nan", "Inf", "NaN", "+Inf", "-Inf"}
AGGREGATORS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
               "quantile"}
DURATION_RE = re.compile(r"^(\d+(ms|[smhdwy]))+$")
STATIC_VAR_TYPES = {"textbox", "custom", "constant"}


# --- durations ----------------------------------------------------------------------------------
def parse_duration(s):
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    total = 0.0
    for num, unit in re.findall(r"(\d+)(ms|[smhdwy])", s):
        total += int(num) * units[unit]
    if not DURATION_RE.match(s):
        raise ValueError(f"bad duration {s!r}")
    return total


def fmt_duration(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


# --- a small PromQL lexer/walker ----------------------------------------------------------------
TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<var>\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z_][A-Za-z0-9_]*\]\])
  | (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*)?|0x[0-9a-fA-F]+)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^=<>@(){}\[\],])
""", re.X)


class PromQLError(ValueError):
    pass


def tokenize(expr):
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN_RE.match(expr, pos)
        if not m:
            raise PromQLError(f"cannot tokenize at {expr[pos:pos + 20]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


def analyse(expr):
    """Returns (selectors, ranges): selectors = [(name, {label: (op, value)}, funcs)],
    ranges = [(text, funcs)] where funcs is the stack of enclosing function names."""
    toks = tokenize(expr)
    selectors, ranges = [], []
    stack = []  # function names (or "(" for plain grouping) of open parentheses
    pending = None  # aggregator whose `by (...)` / `without (...)` comes before its argument
    i = 0

    def funcs():
        return [f for f in stack if f != "("]

    def matchers_at(j):
        """Parses {...} starting at toks[j] == '{'; returns (dict, index after '}')."""
        ms = {}
        j += 1
        while toks[j][1] != "}":
            if toks[j][1] == ",":
                j += 1
                continue
            label, op, val = toks[j][1], toks[j + 1][1], toks[j + 2]
            if op not in ("=", "!=", "=~", "!~") or val[0] not in ("str",):
                raise PromQLError(f"bad matcher near {label!r}")
            ms[label] = (op, val[1][1:-1])
            j += 3
        return ms, j + 1

    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if kind == "ident" and text in AGGREGATORS and nxt in ("by", "without"):
            pending = text
            i += 1
            continue
        if kind == "ident" and text in LIST_KEYWORDS:
            i += 1
            if nxt == "(":
                depth = 0
                while i < len(toks):
                    if toks[i][1] == "(":
                        depth += 1
                    elif toks[i][1] == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    i += 1
                i += 1
            continue
        if kind == "ident" and nxt == "(":
            stack.append(text)
            i += 2
            continue
        if kind == "ident" and text in OP_KEYWORDS:
            i += 1
            if text == "offset" and i < len(toks) and toks[i][0] in ("num", "var"):
                i += 1
            continue
        if kind == "ident" and text in NUMBER_WORDS:
            i += 1
            continue
        if kind == "ident" or (kind == "op" and text == "{"):
            name = text if kind == "ident" else None
            j = i + 1 if kind == "ident" else i
            ms = {}
            if j < len(toks) and toks[j][1] == "{":
                ms, j = matchers_at(j)
            if name is None:
                name = ms.get("__name__", ("=", None))[1]
            selectors.append((name, ms, funcs()))
            i = j
            continue
        if text == "(":
            stack.append(pending or "(")
            pending = None
        elif text == ")":
            if not stack:
                raise PromQLError("unbalanced ')'")
            stack.pop()
        elif text == "[":
            j = i + 1
            while j < len(toks) and toks[j][1] != "]":
                j += 1
            ranges.append(("".join(t for _, t in toks[i + 1:j]), funcs()))
            i = j
        i += 1
    if stack:
        raise PromQLError("unbalanced '('")
    return selectors, ranges


# --- variable substitution ----------------------------------------------------------------------
def substitute(expr, values):
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        name = name.split(":")[0]
        if name not in values:
            raise PromQLError(f"unknown variable ${name}")
        return values[name]
    return re.sub(r"\$\{([^}]+)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\[\[([A-Za-z_][A-Za-z0-9_]*)\]\]", repl, expr)


def var_used(name, text):
    return re.search(r"\$\{" + re.escape(name) + r"(?::[^}]*)?\}|\$" + re.escape(name) + r"(?![A-Za-z0-9_])|\[\[" +
                     re.escape(name) + r"\]\]", text) is not None


def static_value(v):
    """The default value of a textbox/custom/constant variable (what Grafana shows first)."""
    cur = (v.get("current") or {}).get("value")
    if isinstance(cur, list):
        cur = cur[0] if cur else None
    if cur:
        return cur
    q = v.get("query")
    return q.split(",")[0].strip() if isinstance(q, str) and q.strip() else None


def label_values_selector(q):
    """label_values(metric{...}, label) -> 'metric{...}'; label_values(label) -> None."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*", q, re.S)
    if m:
        return m.group(1)
    m = re.fullmatch(r"\s*query_result\((.*)\)\s*", q, re.S)
    return m.group(1) if m else None


# --- checks -------------------------------------------------------------------------------------
class Checker:
    def __init__(self, args):
        self.args = args
        self.problems = []
        self.queries = []  # (where, expr_with_grafana_vars, may_be_empty, panel_interval, kind)
        self.uids = {}
        self.titles = {}
        self.variables = {}  # dashboard file name -> [variable dict] in order
        self.panel_titles = {}  # "where" of a panel query -> panel title

    def fail(self, where, msg):
        self.problems.append(f"{where}: {msg}")

    def static_values(self, dash):
        """Textbox/custom/constant variables of a dashboard at their default value."""
        return {v["name"]: static_value(v) for v in self.variables.get(dash, [])
                if v.get("type") in STATIC_VAR_TYPES and static_value(v)}

    def check_dashboard(self, path):
        name = os.path.basename(path)
        try:
            with open(path, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            self.fail(name, f"not valid JSON: {e}")
            return None
        if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < 37:
            self.fail(name, "schemaVersion must be >= 37")
        uid = d.get("uid")
        if not isinstance(uid, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", uid):
            self.fail(name, f"uid {uid!r} must be a fixed lower-case id (<= 40 chars)")
        elif uid in self.uids:
            self.fail(name, f"uid {uid} also used by {self.uids[uid]}")
        else:
            self.uids[uid] = name
        title = d.get("title")
        if not title or title in self.titles:
            self.fail(name, f"title {title!r} missing or also used by {self.titles.get(title)}")
        self.titles[title] = name
        if d.get("id") is not None:
            self.fail(name, "id must be null (Grafana assigns it)")
        if d.get("editable") is not False:
            self.fail(name, "editable must be false (provisioned dashboards are edited in the repo)")
        if "rxe_exporter" not in (d.get("tags") or []):
            self.fail(name, "tags must include rxe_exporter (dashboard links use it)")
        if "__inputs" in d and d["__inputs"]:
            self.fail(name, "__inputs (${DS_...} placeholders) break file provisioning; use the datasource variable")
        if "${DS_" in json.dumps(d):
            self.fail(name, "${DS_...} placeholder found; use ${datasource}")
        variables = self.check_variables(name, d)
        self.variables[name] = variables
        self.check_panels(name, d, variables)
        return d

    def check_variables(self, name, d):
        vs = (d.get("templating") or {}).get("list") or []
        by_name = {}
        for v in vs:
            if v.get("name") in by_name:
                self.fail(name, f"variable {v.get('name')} defined twice")
            by_name[v.get("name")] = v
        dss = [v for v in vs if v.get("type") == "datasource"]
        if len(dss) != 1 or dss[0].get("name") != "datasource" or dss[0].get("query") != "prometheus":
            self.fail(name, "exactly one datasource variable named `datasource` with query `prometheus` is required")
        elif dss[0].get("label") != "Data Source":
            self.fail(name, "the datasource variable's label must be 'Data Source'")
        names = [v.get("name") for v in vs]
        for required in ("job", "instance"):
            v = by_name.get(required)
            if not v:
                self.fail(name, f"variable `{required}` is required")
                continue
            if not (v.get("multi") and v.get("includeAll") and v.get("allValue") == ".+"):
                self.fail(name, f"variable `{required}` must be multi-value with 'All' = .+")
        if names[:3] != ["datasource", "job", "instance"]:
            self.fail(name, "variables must start with datasource, job, instance (in that order)")
        for v in vs:
            vn = v.get("name")
            if v.get("type") in STATIC_VAR_TYPES and not static_value(v):
                self.fail(f"{name}: variable {vn}", f"{v.get('type')} variable without a default value")
            if v.get("type") != "query":
                continue
            where = f"{name}: variable {vn}"
            if (v.get("datasource") or {}).get("uid") != DS_UID:
                self.fail(where, "must use ${datasource}")
            if v.get("refresh") != 2:
                self.fail(where, "must refresh on time range change (refresh: 2)")
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            if not q:
                self.fail(where, "no query")
                continue
            if v.get("definition") not in (None, q):
                self.fail(where, "definition differs from query")
            if vn != "job" and not var_used("job", q):
                self.fail(where, "must be chained to $job")
            if vn not in ("job", "instance") and not var_used("instance", q):
                self.fail(where, "must be chained to $instance")
            sel = label_values_selector(q)
            if sel is None:
                self.fail(where, "only label_values(metric{...}, label) / query_result(...) queries are supported")
            else:
                self.queries.append((where, sel, False, None, "variable"))
        return vs

    def check_panels(self, name, d, variables):
        panels = d.get("panels") or []
        flat = []
        for p in panels:
            flat.append(p)
            flat.extend(p.get("panels") or [])
        ids, cells = set(), {}
        everything = json.dumps([p for p in flat]) + json.dumps(d.get("links") or [])
        for v in variables:
            q = v.get("query")
            everything += json.dumps(q)
        for p in flat:
            pid = p.get("id")
            where = f"{name}: panel {pid} {p.get('title')!r}"
            if pid in ids:
                self.fail(where, "duplicate panel id")
            ids.add(pid)
            if p.get("type") not in PANEL_TYPES:
                self.fail(where, f"unexpected panel type {p.get('type')}")
            gp = p.get("gridPos") or {}
            if not all(isinstance(gp.get(k), int) for k in ("x", "y", "w", "h")) or gp["x"] + gp["w"] > 24:
                self.fail(where, f"bad gridPos {gp}")
            else:
                for x in range(gp["x"], gp["x"] + gp["w"]):
                    for y in range(gp["y"], gp["y"] + gp["h"]):
                        if (x, y) in cells:
                            self.fail(where, f"overlaps panel {cells[(x, y)]}")
                            break
                        cells[(x, y)] = pid
                    else:
                        continue
                    break
            if p.get("type") == "row":
                continue
            if not p.get("title"):
                self.fail(where, "no title")
            if not p.get("description"):
                self.fail(where, "no description")
            if (p.get("datasource") or {}).get("uid") != DS_UID:
                self.fail(where, "panel datasource must be ${datasource}")
            defaults = (p.get("fieldConfig") or {}).get("defaults") or {}
            unit = defaults.get("unit") or ((p.get("options") or {}).get("yAxis") or {}).get("unit")
            if not unit:
                self.fail(where, "no unit")
            targets = [t for t in p.get("targets") or [] if not t.get("hide")]
            if not targets:
                self.fail(where, "panel without a query")
            refs = set()
            may_be_empty = "Empty when" in (p.get("description") or "")
            for t in targets:
                tw = f"{where} query {t.get('refId')}"
                if t.get("refId") in refs:
                    self.fail(tw, "duplicate refId")
                refs.add(t.get("refId"))
                if (t.get("datasource") or {}).get("uid") != DS_UID:
                    self.fail(tw, "target datasource must be ${datasource}")
                if not (t.get("expr") or "").strip():
                    self.fail(tw, "empty expr")
                    continue
                self.check_expr(tw, t["expr"])
                self.queries.append((tw, t["expr"], may_be_empty, p.get("interval"), "panel"))
                self.panel_titles[tw] = p.get("title")
            for link in defaults.get("links") or []:
                m = re.match(r"/d/([^/?]+)", link.get("url", ""))
                if m:
                    self.links.append((where, m.group(1)))
        for v in variables:
            vn = v.get("name")
            if vn == "datasource":
                continue
            others = everything.replace(json.dumps(v.get("query")), "", 1)
            if not var_used(vn, others):
                self.fail(f"{name}: variable {vn}", "not used by any panel, link or other variable")

    def check_expr(self, where, expr):
        try:
            selectors, ranges = analyse(expr)
        except (PromQLError, IndexError) as e:
            self.fail(where, f"cannot analyse PromQL: {e}")
            return
        if not selectors:
            self.fail(where, "no metric selector")
        for sel_name, ms, funcs in selectors:
            for label in ("job", "instance"):
                op, val = ms.get(label, (None, None))
                if op != "=~" or val not in (f"${label}", f"${{{label}}}"):
                    self.fail(where, f"selector {sel_name} must match {label}=~\"${label}\"")
            if sel_name and sel_name.endswith(COUNTER_SUFFIXES) and not RATE_FUNCS & set(funcs):
                self.fail(where, f"counter {sel_name} must be wrapped in rate/irate/increase")
        for text, funcs in ranges:
            inner = funcs[-1] if funcs else None
            if inner in RATE_FUNCS and text != "$__rate_interval":
                self.fail(where, f"{inner}() must use [$__rate_interval], not [{text}]")
            elif not text.startswith("$"):
                self.fail(where, f"hard-coded range [{text}]: use $__rate_interval / $__interval / $__range")

    # --- promtool / prometheus ------------------------------------------------------------------
    def values(self, panel_interval):
        scrape = parse_duration(self.args.scrape_interval)
        interval = max(parse_duration(self.args.interval), parse_duration(panel_interval) if panel_interval else 0)
        rate = max(interval + scrape, 4 * scrape)
        vals = {"__rate_interval": fmt_duration(rate), "__interval": fmt_duration(interval),
                "__range": self.args.range, "__range_s": str(int(parse_duration(self.args.range))),
                "__interval_ms": str(int(interval * 1000)), "datasource": "prometheus"}
        return vals

    def rule_exprs(self):
        out = []
        for path in sorted(glob.glob(self.args.rules)) if self.args.rules else []:
            doc = load_yaml(path)
            for g in (doc or {}).get("groups") or []:
                for r in g.get("rules") or []:
                    kind = "alert" if "alert" in r else "record"
                    out.append((f"{os.path.basename(path)}: {kind} {r.get(kind)}", r.get("expr"), kind))
        return out

    def run_promtool(self, items):
        """items: [(where, expr)]; returns the failing ones with promtool's message."""
        def write(path, chunk):
            with open(path, "w", encoding="utf-8") as f:
                f.write("groups:\n  - name: dashboard_queries\n    rules:\n")
                for k, (_, expr) in enumerate(chunk):
                    f.write(f"      - record: dashboard_check:query:{k}\n        expr: {json.dumps(expr)}\n")

        def ok(chunk, tmp):
            path = os.path.join(tmp, "queries.yml")
            write(path, chunk)
            r = subprocess.run([self.args.promtool, "check", "rules", path], capture_output=True, text=True)
            return r.returncode == 0, (r.stdout + r.stderr).strip()

        with tempfile.TemporaryDirectory() as tmp:
            good, msg = ok(items, tmp)
            if good:
                return []
            bad = []
            for item in items:  # pinpoint the culprits
                good, msg = ok([item], tmp)
                if not good:
                    bad.append((item[0], msg.splitlines()[-1] if msg else "promtool failed"))
            if not bad:
                bad.append(("(all queries)", msg))
            return bad

    def query(self, expr):
        url = self.args.prometheus.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:
            try:
                body = json.load(e)
            except ValueError:
                return None, f"HTTP {e.code}"
        except (urllib.error.URLError, OSError, ValueError) as e:
            return None, str(e)
        if body.get("status") != "success":
            return None, body.get("error", "query failed")
        data = body["data"]
        # A series whose value is NaN (e.g. histogram_quantile over zero rates) draws nothing: not data.
        if data.get("resultType") == "vector":
            data["result"] = [r for r in data.get("result") or [] if r.get("value", [0, "NaN"])[1] != "NaN"]
        elif data.get("resultType") == "scalar" and (data.get("result") or [0, "NaN"])[1] == "NaN":
            data["result"] = []
        return data, None

    # --- real variable values ---------------------------------------------------------------------
    def variable_values(self, dash, var, assignment, interval=None):
        """Real values of query variable `var` given earlier variables' values (assignment: name ->
        substituted text). Returns a sorted list of label values, or None if it cannot be resolved."""
        q = var.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.fullmatch(r"\s*label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*", q or "", re.S)
        if not m:
            return None
        vals = self.values(interval)
        vals.update(assignment)
        names = [v.get("name") for v in self.variables.get(dash, [])]
        vals.update({k: x for k, x in self.static_values(dash).items() if k not in assignment})
        for vn in names:
            vals.setdefault(vn, ".+")
        sel, label = substitute(m.group(1), vals), m.group(2)
        data, err = self.query(f"count by ({label}) ({sel})")
        if err:
            return None
        return sorted({r["metric"].get(label) for r in data.get("result") or [] if r["metric"].get(label)})

    def default_assignment(self, dash):
        """Grafana's default view: multi-value variables with All at allValue, others at their first
        real value. Returns (assignment, problems)."""
        assignment, problems = {}, []
        for v in self.variables.get(dash, []):
            if v.get("type") != "query":
                continue
            if v.get("includeAll"):
                assignment[v["name"]] = v.get("allValue") or ".+"
                continue
            vals = self.variable_values(dash, v, assignment)
            if not vals:
                problems.append(f"{dash}: variable {v['name']}: no real value")
                assignment[v["name"]] = ".+"
            else:
                assignment[v["name"]] = regex_escape(vals[0])
        return assignment, problems

    def concrete_assignments(self, dash, limit):
        """Combinations of single real values of the query variables, chained in order (a later
        variable's values depend on the earlier ones), at most `limit`."""
        qvars = [v for v in self.variables.get(dash, []) if v.get("type") == "query"]
        out = []

        def walk(k, assignment, shown):
            if len(out) >= limit:
                return
            if k == len(qvars):
                out.append((dict(assignment), dict(shown)))
                return
            v = qvars[k]
            for val in self.variable_values(dash, v, assignment) or []:
                assignment[v["name"]], shown[v["name"]] = regex_escape(val), val
                walk(k + 1, assignment, shown)
                del assignment[v["name"]], shown[v["name"]]
        walk(0, {}, {})
        return out


def regex_escape(value):
    """A single value of a multi-value variable as Grafana's Prometheus data source substitutes it
    (regex special characters escaped; the backslash doubled inside the PromQL string)."""
    return re.sub(r"([\\^$*+?.()|{}\[\]])", r"\\\\\1", value)


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def check_provisioning(c, root):
    """Grafana provisioning files: a prometheus datasource and a file dashboard provider."""
    for kind, key in (("datasources", "datasources"), ("dashboards", "providers")):
        paths = sorted(glob.glob(os.path.join(root, kind, "*.yml")))
        if not paths:
            c.fail(f"provisioning/{kind}", "no provisioning file")
        for path in paths:
            where = os.path.relpath(path, os.path.dirname(root))
            try:
                doc = load_yaml(path) or {}
            except yaml.YAMLError as e:
                c.fail(where, str(e))
                continue
            if doc.get("apiVersion") != 1:
                c.fail(where, "apiVersion must be 1")
            entries = doc.get(key) or []
            if not entries:
                c.fail(where, f"no {key}")
            for e in entries:
                if kind == "datasources" and (e.get("type") != "prometheus" or not e.get("uid") or not e.get("url")):
                    c.fail(where, "datasource needs type prometheus, a uid and a url")
                if kind == "dashboards":
                    if e.get("type") != "file" or not (e.get("options") or {}).get("path"):
                        c.fail(where, "provider needs type file and options.path")
                    if e.get("allowUiUpdates") not in (False, None):
                        c.fail(where, "allowUiUpdates must be false (dashboards are generated)")


def parse_allowances(c, flag, key, items):
    """{KEY: reason} from the KEY=REASON values of `flag`; a missing key or reason is a failure."""
    out = {}
    for item in items:
        name, sep, reason = item.partition("=")
        if not sep or not name or not reason.strip():
            c.fail(flag, f"{item!r}: want {key}=REASON (a reason is required)")
        out[name] = reason.strip()
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, ".."))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dashboards", default=os.path.join(root, "*.json"), help="glob of dashboard JSON files")
    ap.add_argument("--rules", default=os.path.join(root, "rules", "*.yml"), help="glob of rule files ('' = none)")
    ap.add_argument("--provisioning", default=os.path.join(root, "provisioning"),
                    help="Grafana provisioning directory to check ('' = none)")
    ap.add_argument("--promtool", default="promtool")
    ap.add_argument("--no-promtool", action="store_true", help="skip the promtool syntax check")
    ap.add_argument("--prometheus", help="run every query against this Prometheus (http://host:port)")
    ap.add_argument("--scrape-interval", default="15s", help="for $__rate_interval (Grafana: max($__interval + "
                                                              "scrape interval, 4 * scrape interval))")
    ap.add_argument("--interval", default="15s", help="$__interval before panel minimum intervals")
    ap.add_argument("--range", default="1h", help="$__range")
    ap.add_argument("--strict-empty", action="store_true",
                    help='"Empty when ..." panels must return data too (except --allow-empty)')
    ap.add_argument("--allow-empty", action="append", default=[], metavar="TITLE=REASON",
                    help="with --strict-empty: a panel (exact title) that may be empty, and why")
    ap.add_argument("--require-rule-data", action="store_true",
                    help="every recording rule must have recorded data and its expression must return data")
    ap.add_argument("--allow-empty-rule", action="append", default=[], metavar="RECORD=REASON",
                    help="with --require-rule-data: a recording rule that may have no data, and why")
    ap.add_argument("--max-combinations", type=int, default=64,
                    help="real variable value combinations tried per dashboard")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    c = Checker(args)
    c.links = []
    paths = sorted(glob.glob(args.dashboards))
    if not paths:
        print(f"check_dashboards: no dashboards match {args.dashboards}", file=sys.stderr)
        return 1
    dashboards = {}
    for path in paths:
        d = c.check_dashboard(path)
        if d:
            dashboards[os.path.basename(path)] = d
    for where, uid in c.links:
        if uid not in c.uids:
            c.fail(where, f"data link to unknown dashboard uid {uid}")

    # Substitute Grafana variables.
    var_names = {}
    for name, d in dashboards.items():
        var_names[name] = [v.get("name") for v in (d.get("templating") or {}).get("list") or []]
    defaults = {}
    if args.prometheus:  # the default view needs real values for single-value variables
        for name in dashboards:
            defaults[name], problems = c.default_assignment(name)
            for prob in problems:
                c.fail(prob, "label_values() returned nothing")
    subst = []  # (where, substituted expr, may_be_empty, kind, raw expr, panel interval)
    for where, expr, may_be_empty, interval, kind in c.queries:
        dash = where.split(":")[0]
        try:
            vals = dict(defaults.get(dash, {}))
            if kind == "variable":  # a variable's own query sees All for every variable
                vals = {}
            subst.append((where, substitute(expr, {**c.values(interval), **{vn: ".+" for vn in var_names.get(dash, [])},
                                                   **c.static_values(dash), **vals}),
                          may_be_empty, kind, expr, interval))
        except (PromQLError, ValueError) as e:
            c.fail(where, str(e))
    rules = c.rule_exprs()
    if args.provisioning:
        check_provisioning(c, args.provisioning)

    if not args.no_promtool:
        for where, msg in c.run_promtool([(w, e) for w, e, _, _, _, _ in subst] + [(w, e) for w, e, _ in rules]):
            c.fail(where, f"promtool: {msg}")

    allowed_empty = parse_allowances(c, "--allow-empty", "TITLE", args.allow_empty)
    allowed_empty_rules = parse_allowances(c, "--allow-empty-rule", "RECORD", args.allow_empty_rule)
    unknown = set(allowed_empty_rules) - {w.rsplit(" ", 1)[-1] for w, _, k in rules if k == "record"}
    if unknown:
        c.fail("--allow-empty-rule", f"no recording rule named {', '.join(sorted(unknown))}")
    dead, empty_rules, stats = [], [], {"default": 0, "concrete": 0, "allowed": 0, "rules": 0, "records": 0}
    used_allowances = set()
    if args.prometheus:
        combos = {name: c.concrete_assignments(name, args.max_combinations) for name in dashboards}
        for name, cs in combos.items():
            if not cs:
                c.fail(name, "no combination of real variable values (a variable's label_values() is empty)")
            elif args.verbose:
                print(f"  {name}: {len(cs)} real variable value combinations")
        for where, expr, may_be_empty, kind, raw, interval in subst:
            title = c.panel_titles.get(where)
            exempt = may_be_empty and not args.strict_empty
            if args.strict_empty and title in allowed_empty:
                exempt = True
                used_allowances.add(title)
            data, err = c.query(expr)
            if err:
                c.fail(where, f"query error: {err}: {expr}")
                continue
            n = len(data.get("result") or [])
            if not n and not exempt:
                dead.append(where)
                c.fail(where, f"returned no data (default view): {expr}")
                continue
            if n:
                stats["default"] += 1
            if kind != "panel":
                if args.verbose:
                    print(f"  {n} series  {where}")
                continue
            dash = where.split(":")[0]
            found = None
            for assignment, shown in combos.get(dash, []):
                e2 = substitute(raw, {**c.values(interval), **c.static_values(dash), **assignment})
                d2, err2 = c.query(e2)
                if not err2 and d2.get("result"):
                    found = (shown, len(d2["result"]))
                    break
            if found:
                stats["concrete"] += 1
                if args.verbose:
                    sel = ",".join(f"{k}={v}" for k, v in found[0].items())
                    print(f"  {n} series (default), {found[1]} with {sel}  {where}")
            elif exempt:
                stats["allowed"] += 1
                print(f"  empty (allowed: {allowed_empty.get(title, 'Empty when ... in its description')})  {where}")
            else:
                dead.append(where)
                c.fail(where, f"no data for any combination of real variable values: {raw}")
        for where, expr, kind in rules:
            data, err = c.query(expr)
            if err:
                c.fail(where, f"query error: {err}")
                continue
            if kind != "record":
                continue
            record = where.rsplit(" ", 1)[-1]
            rdata, rerr = c.query(record) if args.require_rule_data else (None, None)
            if not data.get("result") and record in allowed_empty_rules:
                print(f"  empty (allowed: {allowed_empty_rules[record]})  {where}")
            elif not data.get("result"):
                empty_rules.append(where)
                if args.require_rule_data:
                    c.fail(where, "expression returned no data")
            elif args.require_rule_data and (rerr or not rdata.get("result")):
                c.fail(where, f"no recorded series {record} ({rerr or 'empty'}): is the rule loaded?")
            else:
                stats["rules"] += 1
                if args.require_rule_data:
                    stats["records"] += 1
                if args.verbose:
                    print(f"  {len(data['result'])} series  {where}")
        for title in set(allowed_empty) - used_allowances:
            c.fail("--allow-empty", f"no panel titled {title!r}")

    for p in c.problems:
        print("FAIL:", p)
    if dead:
        print("Dead panels (no data from " + args.prometheus + "):")
        for w in dead:
            print("  " + w)
    if empty_rules:
        print("Recording rules without data yet (need history): " + ", ".join(empty_rules))
    npanels = sum(1 for d in dashboards.values() for p in d.get("panels") or [] if p.get("type") != "row")
    if args.prometheus:
        npq = sum(1 for q in c.queries if q[4] == "panel")
        nrec = sum(1 for r in rules if r[2] == "record")
        print(f"check_dashboards: against {args.prometheus}: {stats['default']} of {len(subst)} panel/variable "
              f"queries returned data in the default view; {stats['concrete']} of {npq} panel queries returned "
              f"data with real variable values ({stats['allowed']} allowed empty); {stats['rules']} of {nrec} "
              f"recording rules returned data{' (recorded series present)' if args.require_rule_data else ''}")
    print(f"check_dashboards: {len(dashboards)} dashboards, {npanels} panels, "
          f"{sum(1 for q in c.queries if q[4] == 'panel')} panel queries, "
          f"{sum(1 for q in c.queries if q[4] == 'variable')} variable queries, {len(rules)} rule expressions"
          f"{' (promtool checked)' if not args.no_promtool else ''}"
          f"{', run against ' + args.prometheus if args.prometheus else ''}: "
          f"{'OK' if not c.problems else str(len(c.problems)) + ' problem(s)'}")
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
