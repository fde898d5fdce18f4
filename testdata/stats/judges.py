"""Reference values for analysis/judges.go (issue #51): judges compared.

Quadratic-weighted kappa and Cohen's kappa from scikit-learn's
cohen_kappa_score (cross-checked with statsmodels' cohens_kappa, quadratic
weights); Krippendorff's alpha (interval metric) from its coincidence
matrix (Krippendorff 2011, "Computing Krippendorff's alpha-reliability",
section C), a route unlike the Go code's pairwise sums; sensitivity,
specificity from scikit-learn's confusion_matrix, and the Rogan–Gladen
estimate (p + sp - 1)/(se + sp - 1) clipped to [0, 1].

Run: /usr/bin/python3 testdata/stats/judges.py > testdata/stats/judges.json
"""
import json
import random

import numpy as np
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import cohens_kappa


def alpha_interval(a, b):
    values = sorted(set(a) | set(b))
    ix = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for x, y in zip(a, b):  # each unit has m_u = 2 values: 1/(m_u - 1) = 1
        o[ix[x], ix[y]] += 1
        o[ix[y], ix[x]] += 1
    n_c = o.sum(axis=1)
    n = n_c.sum()
    delta = np.array([[(c - k) ** 2 for k in values] for c in values], dtype=float)
    d_o = (o * delta).sum() / n
    d_e = (np.outer(n_c, n_c) * delta).sum() / (n * (n - 1))
    return 1 - d_o / d_e


def case(name, a, b):
    labels = list(range(1, 11))
    k = cohen_kappa_score(a, b, labels=labels, weights="quadratic")
    table = confusion_matrix(a, b, labels=labels)
    sm = cohens_kappa(table, wt="quadratic").kappa
    assert abs(k - sm) < 1e-12, (k, sm)
    return {"name": name, "a": a, "b": b, "weighted_kappa": k, "alpha": alpha_interval(a, b),
            "mean_diff": float(np.mean(np.array(b) - np.array(a)))}


def binary(name, a, b):
    return {"name": name, "a": a, "b": b, "kappa": cohen_kappa_score(a, b)}


def rogan(name, judge_all, judge_lab, human_lab):
    tn, fp, fn, tp = confusion_matrix(human_lab, judge_lab, labels=[0, 1]).ravel()
    se, sp = tp / (tp + fn), tn / (tn + fp)
    p = sum(judge_all) / len(judge_all)
    rg = min(1.0, max(0.0, (p + sp - 1) / (se + sp - 1)))
    return {"name": name, "judge": judge_all, "judge_labelled": judge_lab, "human": human_lab,
            "tp": int(tp), "fp": int(fp), "fn": int(fn), "tn": int(tn),
            "sensitivity": se, "specificity": sp, "observed": p, "corrected": rg}


def main():
    rng = random.Random(51)
    truth = [rng.randint(1, 10) for _ in range(60)]
    close = [min(10, max(1, t + rng.choice([-1, 0, 0, 1]))) for t in truth]
    harsh = [min(10, t + rng.choice([0, 1, 2])) for t in truth]
    noise = [rng.randint(1, 10) for _ in range(60)]
    skewed_a = [rng.choice([1, 1, 1, 2, 3, 8]) for _ in range(40)]
    skewed_b = [min(10, x + rng.choice([0, 0, 1, 5])) for x in skewed_a]

    cases = [case("close", truth, close), case("harsh", truth, harsh), case("noise", truth, noise),
             case("skewed", skewed_a, skewed_b), case("small", [1, 2, 3, 4, 5], [1, 3, 3, 5, 4])]

    ba = [rng.random() < 0.3 for _ in range(80)]
    bb = [x if rng.random() < 0.85 else not x for x in ba]
    binaries = [binary("binary", [int(x) for x in ba], [int(x) for x in bb]),
                binary("binary-small", [1, 0, 1, 1, 0, 0], [1, 0, 0, 1, 0, 1])]

    human = [rng.random() < 0.25 for _ in range(50)]
    jl = [(h and rng.random() < 0.8) or (not h and rng.random() < 0.1) for h in human]
    jall = jl + [rng.random() < 0.3 for _ in range(150)]
    rg = [rogan("rogan-gladen", [int(x) for x in jall], [int(x) for x in jl], [int(x) for x in human])]

    for c in cases:
        c["kind"] = "weighted"
    for c in binaries:
        c["kind"] = "binary"
    for c in rg:
        c["kind"] = "rogan_gladen"
    print(json.dumps({"source": "testdata/stats/judges.py: scikit-learn cohen_kappa_score and confusion_matrix, statsmodels cohens_kappa, Krippendorff's coincidence matrix",
                      "cases": cases + binaries + rg}, indent=1))


if __name__ == "__main__":
    main()
