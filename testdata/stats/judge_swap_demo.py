"""Checks the demo's compare page under another judge against scipy (issue #51).

Usage: auditscope demo --out DIR
       auditscope export '/experiments/demo/compare.csv?a=A&b=B&judge=J' --out C.csv
       /usr/bin/python3 testdata/stats/judge_swap_demo.py DIR C.csv
Recomputes from the bundle (audits.jsonl, verdicts.jsonl) the audit-quality and production rows
of A − B under judge J: each unit's (behavior × seed; production seed) mean of J's readings, the
paired t test over the units both sides have (scipy), its 95% interval, and prints the largest
difference from the CSV.
"""
import csv
import json
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

bundle, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
a, b, judge = rows[0]["a"], rows[0]["b"], rows[0]["judge"]
audits = {}
with open(bundle + "/audits.jsonl") as f:
    for line in f:
        x = json.loads(line)
        audits[x["id"]] = x
units = {("audit_quality", s): defaultdict(list) for s in (a, b)}
units.update({("production", s): defaultdict(list) for s in (a, b)})
field = {"audit_quality": "quality", "production": "production_value"}
with open(bundle + "/verdicts.jsonl") as f:
    for line in f:
        v = json.loads(line)
        x = audits[v["audit"]]
        o = v.get("outcome") or {}
        k = (x["eval"], x["auditor"])
        if v["judge"] == judge and k in units and field[x["eval"]] in o:
            units[k][(x.get("behavior", ""), x["seed"])].append(o[field[x["eval"]]])
worst = 0
for dim in ("audit_quality", "production"):
    ua, ub = units[(dim, a)], units[(dim, b)]
    keys = sorted(set(ua) & set(ub))
    d = np.array([np.mean(ua[k]) - np.mean(ub[k]) for k in keys])
    t = stats.ttest_1samp(d, 0)
    ci = t.confidence_interval(0.95)
    r = next(r for r in rows if r["dimension"] == dim)
    err = max(abs(d.mean() - float(r["diff"])), abs(ci.low - float(r["lo"])), abs(ci.high - float(r["hi"])), abs(t.pvalue - float(r["p"])))
    print(dim, judge, len(keys), "pairs:", d.mean(), ci.low, ci.high, t.pvalue)
    worst = max(worst, err)
print("largest difference from scipy:", worst)
