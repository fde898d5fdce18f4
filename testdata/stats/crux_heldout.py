#!/usr/bin/python3
"""Reference values for the crux regression judged out of sample (issue #48):
analysis.LeaveGroupOutR2 and analysis.R2GroupBCa.

Run with Debian 12's Python and packages (apt-get install python3-scipy
python3-sklearn) from the repository root:

    /usr/bin/python3 testdata/stats/crux_heldout.py

It writes crux_heldout.json beside itself.

- loro_r2: sklearn cross_val_predict(LinearRegression(), x, y,
  cv=LeaveOneGroupOut(), groups) then 1 - PRESS/TSS with TSS about the mean
  of all rows (sklearn's r2_score), checked against a numpy refit per fold.
- perm_p_exact (small cases only): every block permutation of the groups'
  targets among the groups (equal sizes), counted exactly: the share whose
  held-out R^2 is at least the observed (the Go test runs drawn
  permutations and allows Monte Carlo error).
- bca_lower, bca_upper: scipy.stats.bootstrap((group index,), R^2 of the
  rows of the drawn groups, method="BCa", n_resamples=100000); numpy's
  stream is not Go's, so the Go test allows bca_se (the bootstrap standard
  deviation of R^2) times a fraction.
"""
import itertools
import json
import os
import sys

import numpy as np
import scipy
import sklearn
from scipy import stats
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import LeaveOneGroupOut, cross_val_predict

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = "Python %s, numpy %s, scipy %s, scikit-learn %s" % (
    ".".join(map(str, sys.version_info[:3])), np.__version__, scipy.__version__, sklearn.__version__)


def r2_in(x, y):
    a = np.column_stack([np.ones(len(y)), x])
    coef = np.linalg.pinv(a) @ y
    e = y - a @ coef
    tss = ((y - y.mean()) ** 2).sum()
    return np.nan if tss == 0 else 1 - (e ** 2).sum() / tss


def loro(x, y, groups):
    pred = cross_val_predict(LinearRegression(), x, y, cv=LeaveOneGroupOut(), groups=groups)
    manual = np.empty(len(y))
    for g in np.unique(groups):
        m = groups == g
        a = np.column_stack([np.ones((~m).sum()), x[~m]])
        coef = np.linalg.pinv(a) @ y[~m]
        manual[m] = np.column_stack([np.ones(m.sum()), x[m]]) @ coef
    assert np.allclose(pred, manual, rtol=1e-9, atol=1e-9)
    tss = ((y - y.mean()) ** 2).sum()
    return 1 - ((y - pred) ** 2).sum() / tss


rng = np.random.default_rng(20261206)
cases = []
for name, runs, epochs, k, signal in [
    ("checkpoints-k3-signal", 16, 3, 3, 1.0),
    ("checkpoints-k8-noise", 16, 3, 8, 0.0),
    ("checkpoints-k3-noise", 16, 3, 3, 0.0),
    ("small-blocks-k1", 5, 2, 1, 1.5),
]:
    # A run's epochs share its features up to epoch noise, as checkpoints do.
    base = rng.uniform(0, 1, (runs, k))
    x = np.repeat(base, epochs, axis=0) + rng.normal(0, 0.05, (runs * epochs, k))
    beta = rng.normal(0, 30, k)
    y = 40 + signal * (x @ beta) + np.repeat(rng.normal(0, 8, runs), epochs) + rng.normal(0, 4, runs * epochs)
    groups = np.repeat(np.array(["run%02d" % r for r in range(runs)]), epochs)
    case = {"name": name, "x": x.tolist(), "y": y.tolist(), "groups": groups.tolist(),
            "loro_r2": float(loro(x, y, groups)), "chance": k / (len(y) - 1)}
    if runs <= 6:
        obs = case["loro_r2"]
        count = total = 0
        yb = y.reshape(runs, epochs)
        for perm in itertools.permutations(range(runs)):
            total += 1
            if loro(x, yb[list(perm)].reshape(-1), groups) >= obs - 1e-12:
                count += 1
        case["perm_p_exact"] = count / total
    idx = np.arange(runs)

    def stat(sample, axis=-1):
        sample = np.atleast_2d(sample)
        out = []
        for s in sample:
            rows = np.concatenate([np.arange(g * epochs, (g + 1) * epochs) for g in s.astype(int)])
            out.append(r2_in(x[rows], y[rows]))
        return np.array(out) if len(out) > 1 else out[0]

    res = stats.bootstrap((idx,), stat, vectorized=False, method="BCa", n_resamples=100000,
                          confidence_level=0.95, random_state=np.random.default_rng(7))
    case.update({"r2": float(r2_in(x, y)), "bca_lower": float(res.confidence_interval.low),
                 "bca_upper": float(res.confidence_interval.high), "bca_se": float(res.standard_error)})
    cases.append(case)

with open(os.path.join(HERE, "crux_heldout.json"), "w") as f:
    json.dump({"source": "sklearn cross_val_predict(LeaveOneGroupOut) for the held-out R^2, exact block permutations, "
               "scipy.stats.bootstrap(method='BCa') over groups (" + VERSIONS + ")", "cases": cases}, f, indent=1)
    f.write("\n")
