"""Checks the demo's judges page against scikit-learn (issue #51).

Usage: auditscope demo --out DIR && auditscope export /experiments/demo/judges.csv --out J.csv
       /usr/bin/python3 testdata/stats/judges_demo.py DIR J.csv
For every dimension the evaluation judge and the second judge both scored, recomputes from the
bundle (audits.jsonl, verdicts.jsonl) the audits, quadratic-weighted kappa (scikit-learn),
Krippendorff's alpha (judges.py's coincidence matrix) and the mean difference, and prints the
largest difference from judges.csv.
"""
import csv
import json
import os
import sys

import numpy as np
from sklearn.metrics import cohen_kappa_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from judges import alpha_interval  # noqa: E402
bundle = sys.argv[1]
ev = {}
with open(bundle + "/audits.jsonl") as f:
    for line in f:
        a = json.loads(line)
        if a.get("scores"):
            ev[a["id"]] = a["scores"]
second = {}
with open(bundle + "/verdicts.jsonl") as f:
    for line in f:
        v = json.loads(line)
        if v.get("kind", "model") == "model" and v["judge"].startswith("claude-opus"):
            second[v["audit"]] = v.get("scores", {})
rows = {r["dimension"]: r for r in csv.DictReader(open(sys.argv[2])) if r["judge_a"] == "evaluation judge" and r["judge_b"].startswith("claude-opus")}
worst = 0
for dim, r in sorted(rows.items()):
    a = [ev[k][dim] for k in second if dim in ev.get(k, {}) and dim in second[k]]
    b = [second[k][dim] for k in second if dim in ev.get(k, {}) and dim in second[k]]
    k = cohen_kappa_score([int(x) for x in a], [int(x) for x in b], labels=list(range(1, 11)), weights="quadratic")
    d = float(np.mean(np.array(b) - np.array(a)))
    al = alpha_interval(a, b)
    err = max(abs(k - float(r["kappa"])), abs(d - float(r["diff_b_minus_a"])), abs(al - float(r["alpha"])))
    worst = max(worst, err)
    if int(r["audits"]) != len(a):
        print("count differs", dim, r["audits"], len(a))
print(len(rows), "dimensions; largest difference from scikit-learn:", worst)
