#!/usr/bin/env python3
"""Independent expected values for the explorer's CSVs on every AnnotatedPairs fixture.

Plain Python from the definitions in testdata/stats/README.md (ff_metrics) and
docs/DOMAIN.md, reading the files the way Feedback Forensics' loader does. It shares no code with
auditscope. Run: python3 web/e2e/testdata/pairs_expected.py data/demo/fixtures > web/e2e/testdata/pairs_expected.json
"""
import csv, hashlib, json, os, re, sys

def slug(s):
    s = re.sub(r"[^a-z0-9._-]+", "-", s.strip().lower()).strip("-.")
    return s[:80].rstrip("-.")

def load_json(path):
    d = json.load(open(path, encoding="utf-8"))
    v2 = str(d.get("metadata", {}).get("version", "1.0")).split(".")[0] == "2"
    rows = []
    for c in d["comparisons"]:
        if v2:
            ra, rb = c["response_a"], c["response_b"]
            r = {"text_a": ra["text"], "text_b": rb["text"], "model_a": ra.get("model"), "model_b": rb.get("model")}
        else:
            r = {"text_a": c["text_a"], "text_b": c["text_b"], "model_a": None, "model_b": None}
        votes = {}
        for ann, a in c.get("annotations", {}).items():
            if "pref" not in a:
                continue
            p = a["pref"]
            if v2 and p in ("a", "b"):
                p = "text_" + p
            votes[ann] = p
        r["votes"] = votes
        rows.append(r)
    anns = list(d["annotators"].keys())
    for r in rows:
        for a in r["votes"]:
            if a not in anns:
                anns.append(a)
    return rows, anns, d["metadata"].get("default_annotator")

def load_csv(path):
    ref = hashlib.md5(b"Default annotator from original dataset (from column `preferred_text`)").hexdigest()[:8]
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        for rec in csv.DictReader(f):
            p = rec["preferred_text"] or None
            rows.append({"text_a": rec["text_a"], "text_b": rec["text_b"], "model_a": rec.get("model_a") or None,
                         "model_b": rec.get("model_b") or None, "votes": {ref: p} if p is not None else {}})
    return rows, [ref], ref

def metrics(ref, ann):
    kept = [(r, a) for r, a in zip(ref, ann) if r in ("text_a", "text_b")]
    n = len(kept)
    agree = sum(1 for r, a in kept if a in ("text_a", "text_b") and a == r)
    disagree = sum(1 for r, a in kept if a in ("text_a", "text_b") and a != r)
    out = {"kept": n, "agree": agree, "disagree": disagree, "not_applicable": n - agree - disagree}
    if n == 0:
        out.update(relevance=None, accuracy=None, agreement=None, kappa=None, strength=None)
    else:
        valid = agree + disagree
        acc = agree / valid if valid else 0.5
        out.update(relevance=valid / n, accuracy=acc, agreement=agree / n, kappa=2 * (acc - 0.5), strength=2 * (acc - 0.5) * valid / n)
    # sklearn cohen_kappa_score(labels=[text_a, text_b]) on pairs where both use a label
    pairs = [(r, a) for r, a in zip(ref, ann) if r in ("text_a", "text_b") and a in ("text_a", "text_b")]
    if not pairs:
        out["kappa_unadjusted"] = None
    else:
        m = len(pairs)
        po = sum(1 for r, a in pairs if r == a) / m
        pe = sum((sum(1 for r, _ in pairs if r == l) / m) * (sum(1 for _, a in pairs if a == l) / m) for l in ("text_a", "text_b"))
        out["kappa_unadjusted"] = None if pe == 1 else (po - pe) / (1 - pe)
    return out

def model_votes(rows, m):
    out = []
    for r in rows:
        a, b = r["model_a"], r["model_b"]
        if a == m and b is not None and b != m:
            out.append("text_a")
        elif b == m and a is not None and a != m:
            out.append("text_b")
        else:
            out.append(None)
    return out

def expected(path):
    rows, anns, default = load_json(path) if path.endswith(".json") else load_csv(path)
    ref = [r["votes"].get(default) for r in rows]
    kept = [(r, v) for r, v in zip(rows, ref) if v in ("text_a", "text_b")]
    n = len(kept)
    ov = {"pairs": n}
    if n:
        la = [len(r["text_a"]) for r, _ in kept]
        lb = [len(r["text_b"]) for r, _ in kept]
        pref = [len(r[v]) for r, v in kept]
        rej = [len(r["text_b" if v == "text_a" else "text_a"]) for r, v in kept]
        longer = ["text_a" if len(r["text_a"]) > len(r["text_b"]) else "text_b" for r, _ in kept]
        ov.update(prop_a=sum(1 for _, v in kept if v == "text_a") / n, avg_len_a=sum(la) / n, avg_len_b=sum(lb) / n,
                  avg_len_preferred=sum(pref) / n, avg_len_rejected=sum(rej) / n,
                  prop_longer=sum(1 for (r, v), l in zip(kept, longer) if v == l) / n)
    per = {}
    for a in anns:
        if a == default:
            continue
        per[a] = metrics(ref, [r["votes"].get(a) for r in rows])
    models = sorted({m for r in rows for m in (r["model_a"], r["model_b"]) if m})
    for m in models:
        per["model:" + m] = metrics(ref, model_votes(rows, m))
    return {"overview": ov, "annotators": per}

def main():
    root = sys.argv[1]
    out = {}
    for name in sorted(os.listdir(root)):
        if name.endswith((".json", ".csv")):
            out[slug(os.path.splitext(name)[0])] = {"file": name, **expected(os.path.join(root, name))}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()

main()
