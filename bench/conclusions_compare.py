#!/usr/bin/env python3
"""conclusions_compare.py LONG.json SHORT.json...: the typed conclusions of short runs of the
default suite held against a long run's (bench/conclusions runs them).

Two kinds of conclusion, both read from the results documents as data, never from sentences:

- relations: for every pair of contenders (results of one workload that differ in exactly one
  setting: strategy, threads, pregrow, harness, or one strategy's batch), the relation by
  fdbench's one rule (separation(), src/model/statistics.cpp): "a<b" or "b<a" (the medians'
  95% intervals do not overlap), "same" (they overlap and the widest end is within 10% of the
  lowest), or no claim ("cannot tell": wide and overlapping; "too few": no 95% interval).
- findings: each finding's kind with its subjects (their role and identity).

A short run agrees with a claim of the long run where it makes it the same way; it contradicts
one where it states a relation the long run contradicts (the opposite order, "same" where the
long run separated them, or separated where the long run called them the same). Claims the long
run does not make (it could not tell) are counted apart: no contradiction is possible there.
"""
import json
import sys

SAME_MARGIN = 0.10
SETTINGS = ("strategy", "threads", "pregrow", "harness")


def identity(r):
    return (r.get("workload"), r.get("kind"), r.get("strategy"), r.get("threads"),
            r.get("batch"), str(r.get("pregrow", "off")), r.get("harness", "minimal"),
            r.get("rcu_expedited"))


def comparable(r):
    return (r.get("status") == "measured" and r.get("failures", 0) == 0
            and "setting-changed" not in r.get("warning_kinds", []))


def contenders(a, b):
    if a["workload"] != b["workload"] or a.get("kind") != b.get("kind"):
        return False
    differ = sum(a.get(k) != b.get(k) for k in SETTINGS)
    if a.get("strategy") == b.get("strategy"):
        differ += a.get("batch") != b.get("batch")
    return differ == 1


def relation(a, b):
    if a.get("median_ci_level", 0) < 0.95 or b.get("median_ci_level", 0) < 0.95:
        return None  # too few
    alo, ahi = a["median_ci_ns"]
    blo, bhi = b["median_ci_ns"]
    if ahi < blo:
        return "a<b"
    if bhi < alo:
        return "b<a"
    if max(ahi, bhi) <= (1 + SAME_MARGIN) * min(alo, blo):
        return "same"
    return None  # cannot tell


def relations(doc):
    rows = [r for r in doc["results"] if comparable(r)]
    out = {}
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if not contenders(a, b):
                continue
            ka, kb = identity(a), identity(b)
            rel = relation(a, b)
            if ka > kb:
                ka, kb = kb, ka
                rel = {"a<b": "b<a", "b<a": "a<b"}.get(rel, rel)
            out[(ka, kb)] = rel
    return out


def findings(doc):
    out = set()
    for f in doc.get("findings", []):
        subjects = tuple(sorted(((s.get("role", ""), identity(s)) for s in f.get("subjects", [])),
                                key=repr))
        out.add((f["kind"], subjects))
    return out


def contradicts(short, long):
    if short is None or long is None or short == long:
        return False
    return True  # the opposite order, or same against separated either way


def main(argv):
    if len(argv) < 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    docs = []
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            docs.append(json.load(f))
    long_rel, long_find = relations(docs[0]), findings(docs[0])
    claims = {k: v for k, v in long_rel.items() if v is not None}
    print(f"long run: {len(long_rel)} contender pairs, {len(claims)} with a claim "
          f"({sum(v == 'same' for v in claims.values())} the same, "
          f"{sum(v != 'same' for v in claims.values())} separated); {len(long_find)} findings")
    print("run       claims made  same way  contradicted  extra (long: cannot tell)  "
          "findings as long")
    totals = [0, 0, 0]
    for n, doc in enumerate(docs[1:], 1):
        rel = relations(doc)
        made = [k for k in claims if rel.get(k) is not None]
        same_way = [k for k in made if rel[k] == claims[k]]
        contra = [k for k in rel if contradicts(rel[k], long_rel.get(k))]
        extra = [k for k in rel if rel[k] is not None and long_rel.get(k) is None]
        found = findings(doc)
        print(f"short{n:<4} {len(made):>5}/{len(claims):<5} {len(same_way):>8} {len(contra):>13}"
              f" {len(extra):>26}  {len(found & long_find):>3}/{len(long_find)}")
        for k in contra:
            print(f"  contradicted: {k[0][2:5]} vs {k[1][2:5]}: short {rel[k]}, long {long_rel[k]}")
        totals[0] += len(made)
        totals[1] += len(same_way)
        totals[2] += len(contra)
    print(f"all short runs: {totals[1]} of {totals[0]} claims made as the long run makes them, "
          f"{totals[2]} contradicted")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
