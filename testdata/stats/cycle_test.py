#!/usr/bin/python3
"""Reference values for the intransitivity tests (issue #48):
analysis.EdgeP and analysis.TestTransitiveCycles.

Run with Debian 12's Python and packages (python3-scipy) from the
repository root:

    /usr/bin/python3 testdata/stats/cycle_test.py

It writes cycle_test.json beside itself.

- edge p: scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue.
- the cycle test: the Bradley-Terry MLE by Hunter's (2004) MM algorithm
  (independent of the Go code's Newton), then 50,000 replays of every
  pair's comparisons from it (numpy binomial draws), each replay's 3-cycles
  of its majority graph counted over all triples; p = (1 + k)/(B + 1) with k
  the replays with at least the observed count, and the mean count. numpy's
  stream is not Go's: the Go test runs its own replays and allows Monte
  Carlo error.
"""
import itertools
import json
import os
import sys

import numpy as np
import scipy
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = "Python %s, numpy %s, scipy %s" % (".".join(map(str, sys.version_info[:3])), np.__version__, scipy.__version__)


def bt_mm(w, iters=20000):
    n = len(w)
    p = np.ones(n)
    games = w + w.T
    wins = w.sum(axis=1)
    for _ in range(iters):
        denom = np.array([sum(games[i, j] / (p[i] + p[j]) for j in range(n) if j != i) for i in range(n)])
        q = wins / denom
        q /= q[-1]
        if np.max(np.abs(q - p)) < 1e-14:
            p = q
            break
        p = q
    return np.log(p)


def cycles3(w):
    n = len(w)
    c = 0
    for i, j, k in itertools.combinations(range(n), 3):
        if (w[i, j] > w[j, i] and w[j, k] > w[k, j] and w[k, i] > w[i, k]) or \
           (w[j, i] > w[i, j] and w[k, j] > w[j, k] and w[i, k] > w[k, i]):
            c += 1
    return c


rng = np.random.default_rng(48)
cases = []
# The demo's shape: a 3-cycle of 18-10 edges among close auditors, and a
# clearly transitive set with one weak cycle.
mats = {
    "close-cycle": np.array([[0, 18, 10, 15], [10, 0, 18, 14], [18, 10, 0, 16], [13, 14, 12, 0]], float),
    "strong-order": np.array([[0, 25, 27, 26, 24], [3, 0, 22, 21, 9], [1, 6, 0, 19, 12], [2, 7, 9, 0, 17], [4, 19, 16, 11, 0]], float),
}
strength = rng.normal(0, 0.3, 7)
m = np.zeros((7, 7))
for i, j in itertools.combinations(range(7), 2):
    games = 20
    a = rng.binomial(games, 1 / (1 + np.exp(-(strength[i] - strength[j]))))
    m[i, j], m[j, i] = a, games - a
mats["close-seven"] = m
for name, w in mats.items():
    beta = bt_mm(w)
    obs = cycles3(w)
    B = 50000
    k = total = 0
    for _ in range(B):
        sim = np.zeros_like(w)
        for i, j in itertools.combinations(range(len(w)), 2):
            games = int(round(w[i, j] + w[j, i]))
            a = rng.binomial(games, 1 / (1 + np.exp(-(beta[i] - beta[j]))))
            sim[i, j], sim[j, i] = a, games - a
        c = cycles3(sim)
        total += c
        k += c >= obs
    edges = []
    for i, j in itertools.permutations(range(len(w)), 2):
        if w[i, j] > w[j, i]:
            edges.append({"wins": int(w[i, j]), "losses": int(w[j, i]),
                          "p": float(stats.binomtest(int(w[i, j]), int(w[i, j] + w[j, i]), 0.5).pvalue)})
    cases.append({"name": name, "wins": w.tolist(), "observed": obs, "p": (1 + k) / (B + 1),
                  "mean": total / B, "edges": edges})

with open(os.path.join(HERE, "cycle_test.json"), "w") as f:
    json.dump({"source": "scipy.stats.binomtest for edges; a parametric bootstrap from Hunter's MM Bradley-Terry fit "
               "with numpy draws for the 3-cycle count (" + VERSIONS + ")", "cases": cases}, f, indent=1)
    f.write("\n")
