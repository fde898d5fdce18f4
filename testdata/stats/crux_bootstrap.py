#!/usr/bin/env python3
"""Reference values for analysis.R2Bootstrap (crux_bootstrap.json).

Pure Python (no numpy here): OLS with intercept by Gaussian elimination
with partial pivoting on the normal equations, R² = 1 − SSR/TSS, and a
percentile bootstrap over rows (each resample draws n rows with
replacement and refits), quantiles linearly interpolated (type 7, numpy's
default). Resamples whose R² is undefined (a constant y) are skipped, as
are singular designs. Python's random stream is not Go's: the Go test runs
its own resamples and allows a tenth of the bootstrap standard error (`se`,
the standard deviation of the resampled R²) on each bound.

Run: python3 crux_bootstrap.py > crux_bootstrap.json (about a minute and a half).
"""
import json
import math
import random
import sys

RESAMPLES = 50000


def ols_r2(x, y):
    n, k = len(y), len(x[0]) + 1
    rows = [[1.0] + list(r) for r in x]
    a = [[sum(rows[i][p] * rows[i][q] for i in range(n)) for q in range(k)] for p in range(k)]
    b = [sum(rows[i][p] * y[i] for i in range(n)) for p in range(k)]
    for c in range(k):  # forward elimination, partial pivoting
        piv = max(range(c, k), key=lambda r: abs(a[r][c]))
        if abs(a[piv][c]) < 1e-12 * max(1.0, max(abs(v) for v in a[c])):
            return None
        a[c], a[piv] = a[piv], a[c]
        b[c], b[piv] = b[piv], b[c]
        for r in range(c + 1, k):
            f = a[r][c] / a[c][c]
            for q in range(c, k):
                a[r][q] -= f * a[c][q]
            b[r] -= f * b[c]
    beta = [0.0] * k
    for c in reversed(range(k)):
        beta[c] = (b[c] - sum(a[c][q] * beta[q] for q in range(c + 1, k))) / a[c][c]
    mean = sum(y) / n
    tss = sum((v - mean) ** 2 for v in y)
    if tss == 0:
        return None
    ssr = sum((y[i] - sum(beta[q] * rows[i][q] for q in range(k))) ** 2 for i in range(n))
    return 1 - ssr / tss


def quantile7(s, q):
    h = (len(s) - 1) * q
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def case(name, x, y, confidence, seed):
    rng = random.Random(seed)
    n = len(y)
    vals = []
    for _ in range(RESAMPLES):
        idx = [rng.randrange(n) for _ in range(n)]
        r2 = ols_r2([x[i] for i in idx], [y[i] for i in idx])
        if r2 is not None:
            vals.append(r2)
    vals.sort()
    m = sum(vals) / len(vals)
    se = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
    alpha = 1 - confidence
    return {"name": name, "x": x, "y": y, "confidence": confidence, "r2": ols_r2(x, y),
            "lower": quantile7(vals, alpha / 2), "upper": quantile7(vals, 1 - alpha / 2), "se": se,
            "kept": len(vals), "resamples": RESAMPLES}


def main():
    rng = random.Random(20261201)
    n = 24
    feats = [[rng.gauss(0, 1) for _ in range(8)] for _ in range(n)]
    y = [1 + 2 * f[0] - f[1] + 0.5 * f[2] + 0.3 * f[5] + rng.gauss(0, 1.5) for f in feats]
    weak = [0.2 * f[0] + rng.gauss(0, 1) for f in feats]
    cases = [
        case("three_rates", [f[:3] for f in feats], y, 0.95, 1),
        case("eight_features", feats, y, 0.95, 2),
        case("weak_signal_three_rates", [f[:3] for f in feats], weak, 0.95, 3),
        case("ninety_percent", [f[:3] for f in feats], y, 0.90, 4),
    ]
    json.dump({"source": "pure Python %s: OLS by Gaussian elimination, percentile bootstrap over rows, %d resamples (crux_bootstrap.py)" % (sys.version.split()[0], RESAMPLES),
               "cases": cases}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
