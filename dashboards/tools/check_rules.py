#!/usr/bin/env python3
"""Checks the Prometheus rules' conventions and that the promtool tests cover them.

  check_rules.py --rules 'dashboards/rules/*.yml' --tests 'dashboards/tests/*.yml' \
                 --runbook docs/runbook.md

Alerts: CamelCase name with the Rxe prefix, a `for:`, severity critical|warning|info, a summary
ending in a period, a templated description, a runbook_url pointing at the alert's own section
of the runbook (which must exist). Recording rules: level:metric:operations names.
Tests: every alert has a test group where it fires and another group where it is asserted not
to fire; every recording rule is evaluated by a promql_expr_test; every test file orders the
rule groups (promtool 2.42 evaluates groups in random order otherwise). Exit status 1 on any
problem. `promtool check rules` / `promtool test rules` do the PromQL and timing part.
"""

import argparse
import glob
import os
import re
import sys

import yaml  # python3-yaml

SEVERITIES = {"critical", "warning", "info"}


def github_anchor(heading):
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def load_rules(paths, problems):
    alerts, records, groups = {}, {}, []
    for path in paths:
        doc = load_yaml(path)
        for g in (doc or {}).get("groups") or []:
            groups.append(g["name"])
            for r in g.get("rules") or []:
                if "alert" in r:
                    if r["alert"] in alerts:
                        problems.append(f"{path}: alert {r['alert']} defined twice")
                    alerts[r["alert"]] = (path, r)
                elif "record" in r:
                    records[r["record"]] = (path, r)
                else:
                    problems.append(f"{path}: rule without alert/record: {r}")
    return alerts, records, groups


def check_alert(name, path, rule, anchors, problems):
    where = f"{path}: {name}"
    if not re.fullmatch(r"Rxe[A-Z][A-Za-z0-9]*", name):
        problems.append(f"{where}: alert names are CamelCase with the Rxe prefix")
    if not rule.get("for"):
        problems.append(f"{where}: no `for:` (every alert needs slack for blips)")
    labels = rule.get("labels") or {}
    if labels.get("severity") not in SEVERITIES:
        problems.append(f"{where}: severity must be one of {sorted(SEVERITIES)}")
    ann = rule.get("annotations") or {}
    summary, desc, runbook = ann.get("summary"), ann.get("description"), ann.get("runbook_url")
    if not summary or not summary.endswith("."):
        problems.append(f"{where}: summary missing or not a sentence ending in a period")
    elif "{{" in summary:
        problems.append(f"{where}: summary must be static (it is shared by grouped alerts)")
    if not desc or "{{" not in desc:
        problems.append(f"{where}: description missing or not templated")
    if not runbook or not runbook.endswith("#" + name.lower()):
        problems.append(f"{where}: runbook_url must end in #{name.lower()}")
    elif not runbook.split("#")[0].endswith("runbook.md"):
        problems.append(f"{where}: runbook_url must point at runbook.md")
    if anchors is not None and name.lower() not in anchors:
        problems.append(f"{where}: no '## {name}' section in the runbook")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", required=True, help="glob of rule files")
    ap.add_argument("--tests", required=True, help="glob of promtool test files")
    ap.add_argument("--runbook", help="runbook markdown with one '## AlertName' section per alert")
    args = ap.parse_args()

    problems = []
    rule_paths = sorted(glob.glob(args.rules))
    test_paths = sorted(glob.glob(args.tests))
    if not rule_paths or not test_paths:
        print("check_rules: no rule or test files found", file=sys.stderr)
        return 1
    alerts, records, groups = load_rules(rule_paths, problems)

    anchors = None
    if args.runbook:
        with open(args.runbook, encoding="utf-8") as f:
            anchors = {github_anchor(m.group(1)) for m in re.finditer(r"^##\s+(.+)$", f.read(), re.M)}
    for name, (path, rule) in sorted(alerts.items()):
        check_alert(name, path, rule, anchors, problems)
    for name, (path, rule) in sorted(records.items()):
        if name.count(":") != 2 or name.startswith(":") or name.endswith(":"):
            problems.append(f"{path}: recording rule {name} is not level:metric:operations")

    fires, quiet, evaluated = {}, {}, set()
    for path in test_paths:
        doc = load_yaml(path)
        order = doc.get("group_eval_order") or []
        used_groups = set()
        for rf in doc.get("rule_files") or []:
            rp = os.path.normpath(os.path.join(os.path.dirname(path), rf))
            if not os.path.exists(rp):
                problems.append(f"{path}: rule file {rf} does not exist")
                continue
            _, _, gs = load_rules([rp], [])
            used_groups.update(gs)
        if sorted(order) != sorted(used_groups):
            problems.append(f"{path}: group_eval_order must list exactly the groups of its rule files "
                            f"(missing {sorted(used_groups - set(order))}, unknown {sorted(set(order) - used_groups)})")
        for i, t in enumerate(doc.get("tests") or []):
            tname = f"{os.path.basename(path)}: {t.get('name') or '#' + str(i)}"
            firing_here, quiet_here = set(), set()
            for a in t.get("alert_rule_test") or []:
                an = a.get("alertname")
                if an not in alerts:
                    problems.append(f"{tname}: tests unknown alert {an}")
                    continue
                if a.get("exp_alerts"):
                    firing_here.add(an)
                else:
                    quiet_here.add(an)
            for an in firing_here:
                fires.setdefault(an, []).append(tname)
            for an in quiet_here - firing_here:
                quiet.setdefault(an, []).append(tname)
            for e in t.get("promql_expr_test") or []:
                for rec in records:
                    if re.search(r"(?<![\w:])" + re.escape(rec) + r"(?![\w:])", e.get("expr") or ""):
                        evaluated.add(rec)
    for an in sorted(alerts):
        if an not in fires:
            problems.append(f"alert {an}: no test case where it fires")
        if an not in quiet:
            problems.append(f"alert {an}: no test group where it must not fire (noise, single bad sample, missed scrape)")
    for rec in sorted(records):
        if rec not in evaluated:
            problems.append(f"recording rule {rec}: not evaluated by any promql_expr_test")

    for p in problems:
        print("FAIL:", p)
    print(f"check_rules: {len(alerts)} alerts, {len(records)} recording rules, "
          f"{len(test_paths)} test files: {'OK' if not problems else str(len(problems)) + ' problem(s)'}")
    for an in sorted(alerts):
        print(f"  {an:34} fires in {len(fires.get(an, []))} group(s), asserted quiet in {len(quiet.get(an, []))}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
