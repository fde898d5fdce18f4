#!/usr/bin/env python3
"""Reference values for the scorer table of Inspect logs (inspect_scorers.json).

Reads every Inspect log in testdata/fixtures/inspect with the standard
library only (json, zipfile), maps each sample's scalar score values as
Inspect's value_to_float() does, reduces a sample's epochs to their mean
(Inspect's default reducer) or, when a .eval log keeps its own
epoch-reduced scores (reductions.json, every sample it scored) and the
file holds no sample of the scorer, takes
those, and computes per log and scorer: n, the
mean, the 95% Wilson interval when every value is 0 or 1 (the formula of
statsmodels proportion_confint(method="wilson"), with z from
statistics.NormalDist), Inspect's stderr (sample sd / sqrt(n)), and the
metrics the log itself reports. It shares no code with auditscope.

Run from the repository root:  python3 testdata/stats/inspect_scorers.py
"""
import json
import math
import os
import statistics
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "inspect")


def value_to_float(v):
    # inspect_ai.scorer._metric.value_to_float with its default arguments.
    if isinstance(v, (bool, int, float)):
        return float(v)
    if v == "C":
        return 1.0
    if v == "P":
        return 0.5
    if v in ("I", "N"):
        return 0.0
    if isinstance(v, str):
        low = v.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            return float(v)
        except ValueError:
            pass
    return 0.0


def wilson(k, n, conf=0.95):
    z = statistics.NormalDist().inv_cdf(1 - (1 - conf) / 2)
    p = k / n
    d = 1 + z * z / n
    center = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return center - half, center + half


def read_log(path):
    if path.endswith(".eval"):
        z = zipfile.ZipFile(path)
        names = z.namelist()
        header = json.loads(z.read("header.json"))
        samples = []
        for name in names:
            if name.startswith("samples/") and name.endswith(".json") and name.count("/") == 1:
                samples.append(json.loads(z.read(name)))
        reductions = json.loads(z.read("reductions.json")) if "reductions.json" in names else []
        return header, samples, reductions
    with open(path) as f:
        log = json.load(f)
    return log, log.get("samples") or [], []


def main():
    cases = []
    for name in sorted(os.listdir(ROOT)):
        if not (name.endswith(".json") or name.endswith(".eval")):
            continue
        header, samples, reductions = read_log(os.path.join(ROOT, name))
        results = header.get("results") or {}
        for es in results.get("scores", []):
            scorer = es["name"]
            # Epochs of a sample reduced to their mean first, as Inspect's
            # default reducer does before the metrics.
            by_sample = {}
            for s in samples:
                sc = (s.get("scores") or {}).get(scorer)
                if sc is not None and not isinstance(sc.get("value"), dict):
                    by_sample.setdefault(str(s["id"]), []).append(value_to_float(sc.get("value")))
            vals = [sum(v) / len(v) for v in by_sample.values()]
            # The samples in the file are what is recomputed; only when the
            # file holds none does the log's own reductions (every sample it
            # scored, already reduced) stand in, and the row says so. A file
            # holding part of a log recomputes that part.
            reduced = [r for r in reductions if r.get("scorer") == scorer]
            reduced = [] if vals else reduced
            if reduced and not any(isinstance(x.get("value"), dict) for x in reduced[0]["samples"]):
                vals = [value_to_float(x.get("value")) for x in reduced[0]["samples"]]
            if not vals:
                continue
            n = len(vals)
            mean = sum(vals) / n
            case = {
                "name": name + ":" + scorer,
                "log": name,
                "scorer": scorer,
                "n": n,
                "rows": sum(len(v) for v in by_sample.values()),
                "reduced": bool(reduced),
                "total": results.get("total_samples"),
                "mean": mean,
                "stderr": statistics.stdev(vals) / math.sqrt(n) if n > 1 else 0.0,
                "reported": {k: m["value"] for k, m in es["metrics"].items()},
            }
            if all(v in (0.0, 1.0) for v in vals):
                lo, hi = wilson(sum(vals), n)
                case["lower"], case["upper"] = lo, hi
            cases.append(case)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inspect_scorers.json")
    with open(out, "w") as f:
        json.dump({"source": "testdata/stats/inspect_scorers.py (Python standard library only)", "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
