#!/usr/bin/python3
"""Reference values for Newcombe's hybrid score intervals (issue #48: paired
rates whose interval covers).

Run with Debian 12's Python and packages (apt-get install python3-scipy
python3-statsmodels) from the repository root:

    /usr/bin/python3 testdata/stats/newcombe.py

It writes newcombe.json beside itself. Floats are written with repr, so Go
reads back the same float64.
"""
import itertools
import json
import math
import os
import sys

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = "Python %s, numpy %s, scipy %s, statsmodels %s" % (
    ".".join(map(str, sys.version_info[:3])), np.__version__, scipy.__version__, statsmodels.__version__)


def wilson(x, n, conf):
    lo, hi = proportion_confint(x, n, alpha=1 - conf, method="wilson")
    # Checked against the closed form.
    z = stats.norm.ppf(1 - (1 - conf) / 2)
    p = x / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    assert abs(lo - (c - h)) < 1e-12 and abs(hi - (c + h)) < 1e-12
    return lo, hi


def paired(a, b, c, d, conf):
    """Newcombe (1998, Stat Med 17:2635) method 10, with his phi* for a
    positive correlation (max(AD - BC - N/2, 0))."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, conf)
    l2, u2 = wilson(a + c, n, conf)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    num = a * d - b * c
    if num > 0:
        num = max(num - n / 2, 0)
    phi = num / math.sqrt(den) if den > 0 else 0.0
    th = p1 - p2
    lo = th - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = th + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return th, lo, hi


def independent(x1, n1, x2, n2, conf):
    lo, hi = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff", alpha=1 - conf)
    # Checked against the closed form (Newcombe 1998, Stat Med 17:873, method 10).
    l1, u1 = wilson(x1, n1, conf)
    l2, u2 = wilson(x2, n2, conf)
    p1, p2 = x1 / n1, x2 / n2
    th = p1 - p2
    lo2 = th - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi2 = th + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    assert abs(lo - lo2) < 1e-12 and abs(hi - hi2) < 1e-12, (x1, n1, x2, n2, lo, lo2, hi, hi2)
    return th, lo, hi


cases = []
# The demo's AuditBench default row the issue recomputed: +13.54 [+5.78, +20.98].
th, lo, hi = paired(31, 14, 1, 50, 0.95)
assert (round(100 * lo, 2), round(100 * hi, 2)) == (5.78, 20.98)
grid = [(31, 14, 1, 50), (0, 0, 0, 96), (96, 0, 0, 0), (0, 5, 0, 91), (10, 0, 7, 79), (20, 20, 20, 36),
        (1, 1, 1, 1), (0, 3, 2, 0), (40, 2, 30, 24), (5, 9, 0, 0), (12, 0, 0, 12), (3, 30, 3, 60)]
for (a, b, c, d), conf in itertools.product(grid, [0.90, 0.95, 0.99]):
    th, lo, hi = paired(a, b, c, d, conf)
    cases.append({"name": "paired_%d_%d_%d_%d_%g" % (a, b, c, d, conf), "kind": "paired",
                  "both": a, "only_a": b, "only_b": c, "neither": d, "confidence": conf,
                  "diff": th, "lower": lo, "upper": hi})
for (x1, n1, x2, n2), conf in itertools.product(
        [(28, 96, 11, 96), (0, 10, 0, 12), (10, 10, 0, 10), (1, 1, 0, 3), (150, 400, 30, 48), (3, 7, 5, 9)],
        [0.90, 0.95, 0.99]):
    th, lo, hi = independent(x1, n1, x2, n2, conf)
    cases.append({"name": "independent_%d_%d_%d_%d_%g" % (x1, n1, x2, n2, conf), "kind": "independent",
                  "x1": x1, "n1": n1, "x2": x2, "n2": n2, "confidence": conf,
                  "diff": th, "lower": lo, "upper": hi})

with open(os.path.join(HERE, "newcombe.json"), "w") as f:
    json.dump({"source": "Newcombe's hybrid score intervals: paired by the closed form of method 10 with phi*, "
               "independent by statsmodels confint_proportions_2indep(method='newcomb'), each checked against "
               "a second computation (" + VERSIONS + ")", "cases": cases}, f, indent=1)
    f.write("\n")
