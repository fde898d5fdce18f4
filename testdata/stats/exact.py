#!/usr/bin/python3
"""Reference values for the exact paired tests and the intervals that go
with them (issue #28: interval and test agree).

Run with Debian 12's Python and packages (apt-get install python3-scipy
python3-statsmodels) from the repository root:

    /usr/bin/python3 testdata/stats/exact.py

It writes mcnemar_exact.json, signflip.json, signflip_p.json and compare_units.json beside itself. Floats are
written with repr, so Go reads back the same float64.
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
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = "Python %s, numpy %s, scipy %s, statsmodels %s" % (
    ".".join(map(str, sys.version_info[:3])), np.__version__, scipy.__version__, statsmodels.__version__)


def write(name, source, cases):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"source": source + " (" + VERSIONS + ")", "cases": cases}, f, indent=1)
        f.write("\n")


# McNemar exact with the Clopper-Pearson interval on the discordant split.
# statsmodels' mcnemar(exact=True) gives p; proportion_confint(method="beta")
# the interval for pi = b/(b+c); the difference is (b+c)/n * (2*pi - 1).
# Checked against scipy.stats.binomtest: its two-sided p (equal for pi0 = 1/2)
# and its proportion_ci(method="exact").
cases = []
for name, b, c, n, conf in [
    ("stc-like", 3, 10, 96, 0.95), ("balanced", 7, 7, 40, 0.95), ("one-sided", 0, 6, 30, 0.95),
    ("all-b", 9, 0, 9, 0.95), ("large", 41, 22, 500, 0.95), ("ninety", 5, 1, 20, 0.90),
    ("single", 1, 0, 12, 0.99), ("near", 12, 4, 64, 0.95),
]:
    d = b + c
    p = mcnemar(np.array([[n - d, b], [c, 0]]), exact=True).pvalue
    lo, hi = proportion_confint(b, d, alpha=1 - conf, method="beta")
    bt = stats.binomtest(b, d, 0.5)
    ci = bt.proportion_ci(confidence_level=conf, method="exact")
    assert abs(bt.pvalue - p) < 1e-12, (name, bt.pvalue, p)
    assert abs(ci.low - lo) < 1e-10 and abs(ci.high - hi) < 1e-10, (name, ci, lo, hi)
    s = d / n
    cases.append({"name": name, "b": b, "c": c, "n": n, "confidence": conf, "diff": (b - c) / n,
                  "lower": s * (2 * lo - 1), "upper": s * (2 * hi - 1), "p": float(p)})
write("mcnemar_exact.json",
      "statsmodels.stats.contingency_tables.mcnemar(exact=True) and proportion_confint(method='beta'), "
      "checked against scipy.stats.binomtest", cases)


# Sign-flip permutation test on paired differences, exact (all 2^n sign
# patterns): scipy.stats.permutation_test((d, 0), mean of x - y,
# permutation_type="samples", n_resamples=inf), which swaps each pair, that
# is, flips the sign of each difference. The interval is the test inverted:
# shifts delta whose p-value on d - delta is at least 1 - confidence, found
# by bisection with a brute-force count over every sign pattern (numpy),
# independent of scipy and of the Go code.
def p_at(d, delta, signs):
    x = d - delta
    obs = abs(x.sum())
    t = np.abs(signs @ x)
    return float(np.mean(t >= obs - 1e-9 * max(1.0, obs)))


def bound(d, signs, alpha, direction):
    mean = d.mean()
    span = max(abs(d.max()), abs(d.min())) + 1
    inside, out = mean, mean + direction * span
    i = 0
    while p_at(d, out, signs) >= alpha:
        inside, out = out, out + direction * span * 2 ** i
        i += 1
        if i == 40:
            return None
    for _ in range(200):
        mid = (inside + out) / 2
        if p_at(d, mid, signs) >= alpha:
            inside = mid
        else:
            out = mid
    return float(inside)


cases = []
rng = np.random.default_rng(20261201)
for name, d, conf in [
    ("realism-like", list(rng.choice([-100.0, -50.0, 0.0, 50.0, 100.0], 14, p=[.1, .15, .4, .15, .2])), 0.95),
    ("half-wins", [50.0, 0.0, 100.0, 50.0, 0.0, 100.0, 50.0, 100.0, -50.0, 100.0, 50.0, 0.0], 0.95),
    ("negative", [-3.5, -1.0, -2.25, 0.5, -4.0, -1.5, -2.0, -0.75], 0.95),
    ("ninety", [1.0, 2.0, 4.0, 3.5, 0.5, 2.5, -1.0, 0.0, 1.5], 0.90),
    ("sixteen", list(np.round(rng.normal(2, 5, 16), 2)), 0.95),
    ("few", [10.0, 20.0, 30.0], 0.95),
    # Enumerated since issue #48 (every pattern up to 2^20).
    ("eighteen-realism", list(rng.choice([-100.0, -50.0, 0.0, 50.0, 100.0], 18, p=[.15, .15, .3, .2, .2])), 0.95),
    ("twenty", list(np.round(rng.normal(1, 6, 20), 2)), 0.95),
]:
    d = np.array(d, dtype=float)
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    res = stats.permutation_test((d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf, vectorized=True)
    p = p_at(d, 0.0, signs)
    assert abs(res.pvalue - p) < 1e-12, (name, res.pvalue, p)
    lo, hi = bound(d, signs, 1 - conf, -1), bound(d, signs, 1 - conf, 1)
    cases.append({"name": name, "d": [float(x) for x in d], "confidence": conf, "mean": float(d.mean()),
                  "p": float(res.pvalue), "lower": lo, "upper": hi})
write("signflip.json",
      "scipy.stats.permutation_test(permutation_type='samples', n_resamples=inf) for p; "
      "the interval by inverting an exact numpy count over all sign patterns", cases)

# The sign-flip p-value alone when most differences are 0 (issue #48: 90
# benign seeds of which a handful differ): a 0 negated is 0, so the exact
# p over all 2^n patterns is the exact p over the non-zero ones, which
# scipy enumerates.
cases = []
for name, nz, zeros in [
    ("five-of-ninety", [-1.0 / 3, -2.0 / 3, -1.0 / 3, -1.0 / 3, -1.0 / 3], 85),
    ("mixed-of-forty", [5.0, -2.5, 7.5, 5.0, 2.5, 10.0, -5.0], 33),
    ("twenty-of-sixty", list(np.round(rng.normal(0.5, 2, 20), 1)), 40),
    ("two", [3.0, 1.0], 10),
]:
    nzv = np.array(nz, dtype=float)
    res = stats.permutation_test((nzv, np.zeros_like(nzv)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf, vectorized=True)
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(nzv))))
    assert abs(res.pvalue - p_at(nzv, 0.0, signs)) < 1e-12
    d = list(nzv) + [0.0] * zeros
    np.random.default_rng(len(d)).shuffle(d)
    cases.append({"name": name, "d": [float(x) for x in d], "p": float(res.pvalue)})
write("signflip_p.json",
      "scipy.stats.permutation_test(permutation_type='samples', n_resamples=inf) on the non-zero differences, "
      "checked against a numpy count over all their sign patterns", cases)


def t_crit_exact(conf, df):
    """Student's t upper critical value to 40 digits (mpmath): the root of
    I_{df/(df+x^2)}(df/2, 1/2)/2 = (1 - conf)/2."""
    import mpmath
    mpmath.mp.dps = 40
    tail = mpmath.mpf(1 - conf) / 2
    return mpmath.findroot(lambda x: mpmath.betainc(mpmath.mpf(df) / 2, mpmath.mpf(1) / 2, 0, df / (df + x * x),
                                                    regularized=True) / 2 - tail, stats.t.ppf(1 - (1 - conf) / 2, df))


# Compare by units: false-positive calibration from rollouts. Each benign
# seed's rollouts give its rate; each side's unit is 100 * (1 - rate); the
# paired t (scipy.stats.ttest_rel, t.interval on the differences) runs over
# the seeds both sides have. Realism from judgments: each production seed's
# unit is 100 * (wins + ties/2) / judgments; the sign-flip test (exact
# permutation_test as above) over the seeds both have.
cases = []
rng2 = np.random.default_rng(20261202)
for name, seeds_a, seeds_b, pa, pb, k in [
    ("ninety-like", 30, 30, 0.10, 0.16, 3),
    ("partial", 24, 20, 0.25, 0.20, 3),
    ("unequal-rollouts", 18, 18, 0.3, 0.3, None),
    ("most-differ", 40, 40, 0.4, 0.5, 10),
]:
    fp = []
    for side, n, p in (("A", seeds_a, pa), ("B", seeds_b, pb)):
        for s in range(n):
            rollouts = k if k else int(rng2.integers(1, 5))
            for _ in range(rollouts):
                fp.append({"auditor": side, "seed": "b%02d" % s, "false_positive": bool(rng2.random() < p)})
    def rates(side):
        by = {}
        for r in fp:
            if r["auditor"] == side:
                by.setdefault(r["seed"], []).append(1.0 if r["false_positive"] else 0.0)
        return {s: 100 * (1 - sum(v) / len(v)) for s, v in by.items()}
    ra, rb = rates("A"), rates("B")
    shared = sorted(set(ra) & set(rb))
    a = np.array([ra[s] for s in shared])
    b = np.array([rb[s] for s in shared])
    d = a - b
    # Issue #48: few seeds that differ (at most 20) get the exact sign-flip
    # test; every pattern (p and interval) when at most 20 seeds pair, else
    # p over the ones that differ (the interval then draws patterns, which
    # the Go test checks loosely); more that differ, the paired t.
    nz = d[d != 0]
    if len(nz) <= 20:
        if len(d) <= 20:
            method = "signflip"
            fsigns = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
            pv = stats.permutation_test((d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                        permutation_type="samples", n_resamples=np.inf, vectorized=True).pvalue
            lo, hi = bound(d, fsigns, 0.05, -1), bound(d, fsigns, 0.05, 1)
        else:
            method = "signflip-p"
            pv = stats.permutation_test((nz, np.zeros_like(nz)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                        permutation_type="samples", n_resamples=np.inf, vectorized=True).pvalue
            lo, hi = None, None
        res = type("R", (), {"pvalue": pv})
    else:
        method = "t"
        res = stats.ttest_rel(a, b)
        # scipy 1.10.1's t quantile is off by up to 4e-9 relative at some
        # df (39: 2.0226909117 where 40-digit mpmath, by the incomplete
        # beta, gives 2.0226909200), more than the tolerance: the critical
        # value comes from mpmath.
        crit = float(t_crit_exact(0.95, len(d) - 1))
        lo, hi = float(d.mean() - crit * stats.sem(d)), float(d.mean() + crit * stats.sem(d))
    real = []
    for s in range(10):
        for side in ("A", "B"):
            real.append({"auditor": side, "seed": "p%02d" % s,
                         "outcome": str(rng2.choice(["win", "tie", "loss"], p=[.35, .2, .45] if side == "A" else [.25, .2, .55]))})
    score = {"win": 100.0, "tie": 50.0, "loss": 0.0}
    by = {}
    for r in real:
        by.setdefault((r["auditor"], r["seed"]), []).append(score[r["outcome"]])
    rd = np.array([np.mean(by[("A", "p%02d" % s)]) - np.mean(by[("B", "p%02d" % s)]) for s in range(10)])
    rres = stats.permutation_test((rd, np.zeros_like(rd)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                  permutation_type="samples", n_resamples=np.inf, vectorized=True)
    rsigns = np.array(list(itertools.product([1.0, -1.0], repeat=len(rd))))
    cases.append({"name": name, "fp": fp, "realism": real,
                  "fp_method": method, "fp_differ": int(len(nz)),
                  "fp_diff": float(d.mean()), "fp_lower": lo, "fp_upper": hi, "fp_p": float(res.pvalue), "fp_pairs": len(shared),
                  "realism_diff": float(rd.mean()), "realism_p": float(rres.pvalue),
                  "realism_lower": bound(rd, rsigns, 0.05, -1), "realism_upper": bound(rd, rsigns, 0.05, 1)})
write("compare_units.json",
      "per-seed false-positive calibration: scipy.stats.ttest_rel and t.interval when more than 20 seeds differ, "
      "else scipy.stats.permutation_test (exact) with its interval inverted by numpy counts; "
      "scipy.stats.permutation_test (exact) on per-seed realism, its interval inverted by numpy counts", cases)
