#!/usr/bin/env python3
"""Medians of kit-side-by-side.sh's runs, per build, each beside etcd's own put/watch of the same rounds.

    python3 Benchmarks/Etcd/side-by-side-report.py ../shared/bench/peers/results/side-by-side.jsonl
"""
import collections
import json
import statistics
import sys

# The headline of each test, and whether lower is better.
HEADLINE = {"seq": ("p50_us", True), "conc": ("sets_per_s", False), "notify": ("p50_us", True)}

runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    record = json.loads(line)
    if record["test"] not in HEADLINE:
        continue
    name = "etcd" if record["target"] == "etcd" else record["variant"]
    runs[(record["test"], name)].append(record["m"][HEADLINE[record["test"]][0]])

print("| test | target | median | min–max | runs | ÷ etcd |")
print("|---|---|---|---|---|---|")
for test in HEADLINE:
    etcd = runs.get((test, "etcd"))
    for (t, name), values in sorted(runs.items()):
        if t != test:
            continue
        median = statistics.median(values)
        ratio = f"{median / statistics.median(etcd):.2f}×" if etcd and name != "etcd" else ""
        print(f"| {test} ({HEADLINE[test][0]}) | {name} | {median:,.0f} | {min(values):,.0f}–{max(values):,.0f} | {len(values)} | {ratio} |")
