#!/usr/bin/python3
"""Reference values for the paired comparisons (issue: is A better than B?).

Run with Debian 12's Python and packages (apt-get install python3-scipy
python3-statsmodels) from the repository root:

    /usr/bin/python3 testdata/stats/paired.py

It writes paired_t.json, welch_t.json, holm.json and paired_bootstrap.json
beside itself. (Newcombe's intervals, the asymptotic McNemar test and the
two-proportion z-test went with issue #29: the dashboard uses the exact tests
of exact.py.)
Floats are written with repr, so Go reads back the same float64.
"""
import json
import math
import os

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = "Python %s, numpy %s, scipy %s, statsmodels %s" % (
    ".".join(map(str, __import__("sys").version_info[:3])), np.__version__, scipy.__version__, statsmodels.__version__)


def write(name, source, cases):
    for c in cases:
        for k, v in c.items():
            if isinstance(v, float) and math.isnan(v):
                c[k] = None
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"source": source + " (" + VERSIONS + ")", "cases": cases}, f, indent=1)
        f.write("\n")


rng = np.random.default_rng(20261130)

# Paired t: scipy.stats.ttest_rel and t.interval on the differences.
cases = []
for name, a, b, conf in [
    ("small", [72.0, 65.5, 80.1, 59.0, 70.2], [68.0, 66.0, 71.5, 60.5, 64.0], 0.95),
    ("quality-like", list(np.round(rng.normal(70, 13, 40), 1)), None, 0.95),
    ("ninety", [1.0, 2.0, 4.0, 3.5, 0.5, 2.5], [0.5, 2.5, 1.0, 1.0, 1.5, 0.0], 0.90),
    ("binary", [1, 0, 1, 1, 0, 1, 1, 0, 1, 1], [0, 0, 1, 0, 0, 1, 0, 0, 1, 0], 0.95),
    ("negative", [10.0, 12.0, 9.0, 11.0], [14.0, 13.5, 12.0, 15.0], 0.99),
]:
    if b is None:
        b = list(np.round(np.array(a) - rng.normal(4, 9, len(a)), 1))
    a = [float(x) for x in a]
    b = [float(x) for x in b]
    d = np.array(a) - np.array(b)
    res = stats.ttest_rel(a, b)
    lo, hi = stats.t.interval(conf, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    cases.append({"name": name, "a": a, "b": b, "confidence": conf, "diff": float(d.mean()),
                  "lower": float(lo), "upper": float(hi), "p": float(res.pvalue)})
write("paired_t.json", "scipy.stats.ttest_rel, scipy.stats.t.interval", cases)

# Welch's t for independent samples: scipy.stats.ttest_ind(equal_var=False);
# the interval from the Welch-Satterthwaite degrees of freedom.
cases = []
for name, a, b, conf in [
    ("unequal-n", [72.0, 65.5, 80.1, 59.0, 70.2, 66.6], [68.0, 66.0, 71.5], 0.95),
    ("production-like", list(np.round(rng.gamma(2, 5, 30), 2)), list(np.round(rng.gamma(2, 7, 25), 2)), 0.95),
    ("ninety", [1.0, 2.0, 4.0, 3.5], [0.5, 2.5, 1.0, 1.0, 1.5, 0.0, 0.2], 0.90),
]:
    a = [float(x) for x in a]
    b = [float(x) for x in b]
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d = float(np.mean(a) - np.mean(b))
    lo, hi = stats.t.interval(conf, df, loc=d, scale=math.sqrt(va + vb))
    res = stats.ttest_ind(a, b, equal_var=False)
    cases.append({"name": name, "a": a, "b": b, "confidence": conf, "diff": d, "lower": float(lo), "upper": float(hi), "p": float(res.pvalue)})
write("welch_t.json", "scipy.stats.ttest_ind(equal_var=False), scipy.stats.t.interval with Welch-Satterthwaite df", cases)

# Holm.
cases = []
for name, p in [("four", [0.01, 0.04, 0.03, 0.005]), ("ties", [0.02, 0.02, 0.5]), ("capped", [0.4, 0.3, 0.6, 0.2, 0.9]),
                ("one", [0.03]), ("seven", [0.001, 0.2, 0.015, 0.04, 0.9, 0.012, 0.3])]:
    adj = multipletests(p, method="holm")[1]
    cases.append({"name": name, "p": p, "adjusted": [float(x) for x in adj]})
write("holm.json", "statsmodels multipletests(method='holm')", cases)

# Paired percentile bootstrap of a mean difference. Random streams differ
# between numpy and Go, so these bounds come from 200,000 resamples and the
# test allows for Monte Carlo error.
cases = []
for name, n, shift, sd in [("quality-like", 60, 3.0, 10.0), ("small-effect", 200, 0.5, 5.0)]:
    a = np.round(rng.normal(70, 13, n), 1)
    b = np.round(a - rng.normal(shift, sd, n), 1)
    res = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True, vectorized=True,
                          n_resamples=200000, method="percentile", confidence_level=0.95, random_state=rng)
    cases.append({"name": name, "a": [float(x) for x in a], "b": [float(x) for x in b], "confidence": 0.95,
                  "diff": float(np.mean(a - b)), "lower": float(res.confidence_interval.low),
                  "upper": float(res.confidence_interval.high), "se": float(res.standard_error)})
write("paired_bootstrap.json", "scipy.stats.bootstrap(paired=True, method='percentile', n_resamples=200000)", cases)
