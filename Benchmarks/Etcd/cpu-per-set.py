#!/usr/bin/env python3
"""Where the CPU of one write goes, etcd's put against propd --etcd, in one run.

The shared kit's own 16-connection test (`harness/bench.py --tests conc`: one
Python process, 16 connections, one write in flight on each, 100 keys cycled),
driven through the kit's target classes, so the client is byte for byte the
kit's: etcd's put through its JSON gateway (the kit's `etcd` target, on the
member the kit starts) and a propd Set on propd --etcd (the kit's `propd`
target started by Benchmarks/Etcd/propd-on-etcd.sh). Around each run it reads
the CPU time of every process the target started (by name: etcd, propd), of
the client (this process) and of the whole machine (/proc/stat), and divides
by the writes acknowledged. Rounds alternate the order. `--propd` may be
given more than once, as NAME=PATH, to set builds side by side in the same
rounds (each column's ratio is to etcd's put); `--floor PATH` adds the
cluster floor (Benchmarks/Etcd/floor: the least a node does for a Set, with
etcd's own Go client) as one more column, started by floor-on-etcd.sh; it
too may be given more than once, as NAME=PATH.

  scripts/release-build --product propd
  python3 Benchmarks/Etcd/cpu-per-set.py --propd .build/release/propd --rounds 5
  python3 Benchmarks/Etcd/cpu-per-set.py --propd before=/tmp/propd-a --propd after=/tmp/propd-b
  python3 Benchmarks/Etcd/cpu-per-set.py --propd .build/release/propd --floor /tmp/cluster-floor
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def process_tree(root):
    """The PIDs of `root` and of every process below it."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(pid))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def cpu_seconds(root):
    """CPU seconds so far of the tree's etcd and node (propd or the floor) processes, this client and the machine."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds = {"etcd": 0.0, "node": 0.0}
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        kind = "node" if name.startswith("propd") or name == "cluster-floor" else name
        if kind in seconds:
            seconds[kind] += (int(fields[11]) + int(fields[12])) / tick
    own = os.times()
    seconds["client"] = own.user + own.system
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    seconds["machine"] = (sum(ticks) - ticks[3] - ticks[4]) / tick
    return seconds


def one_run(bench, targets, args, who, builds, floors):
    if who == "etcd":
        target = targets["etcd"]("default", None, None)
    elif who in floors:
        command = f"env CLUSTER_FLOOR_BIN={builds[who]} bash {HERE / 'floor' / 'floor-on-etcd.sh'} {{sock}} {{dir}}"
        target = targets["propd"]("normal", None, command)
    else:
        command = f"env PROPD_ETCD_BIN={builds[who]} bash {HERE / 'propd-on-etcd.sh'} {{sock}} {{dir}}"
        target = targets["propd"]("normal", None, command)
    target.value_size = 100
    target.start()
    try:
        run = bench.new_run()
        value = target.make_value(100)
        requests = [target.encode_set(target.key(run, i % 100), value, i) for i in range(args.n)]
        before = cpu_seconds(target.server.pid)
        acknowledged, started, ended = bench.windowed_writes(target, requests, 16, 1, args.seconds)
        after = cpu_seconds(target.server.pid)
    finally:
        target.stop()
    figures = {"writes/s": acknowledged / ((ended - started) / 1e9)}
    for kind in before:
        figures[f"{kind} µs/write"] = (after[kind] - before[kind]) * 1e6 / max(1, acknowledged)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--propd", action="append", default=[], help="a release propd, or NAME=PATH (repeatable)")
    parser.add_argument("--floor", action="append", default=[],
                        help="a cluster-floor binary (Benchmarks/Etcd/floor/floor.sh builds it), or NAME=PATH (repeatable)")
    parser.add_argument("--kit", default=str(HERE.parents[2] / "shared" / "bench" / "peers"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--n", type=int, default=200000, help="writes at most per run (the kit's --n-pipe)")
    args = parser.parse_args()
    builds = {}
    for given in args.propd:
        name, _, path = given.rpartition("=")
        builds[name or "propd --etcd Set"] = os.path.abspath(path)
    floors = set()
    for given in args.floor:
        name, _, path = given.rpartition("=")
        builds[name or "cluster floor"] = os.path.abspath(path)
        floors.add(name or "cluster floor")
    sys.path.insert(0, args.kit)
    sys.path.insert(0, os.path.join(args.kit, "harness"))
    import bench
    from targets import TARGETS

    results = {who: [] for who in ["etcd", *builds]}
    for round in range(args.rounds):
        order = list(results) if round % 2 == 0 else list(reversed(results))
        for who in order:
            figures = one_run(bench, TARGETS, args, who, builds, floors)
            results[who].append(figures)
            print(f"round {round + 1} {who}: " + ", ".join(f"{k} {v:,.1f}" for k, v in figures.items()), flush=True)

    print(f"\nmedians of {args.rounds} rounds, 16 connections, one write in flight each")
    print("| figure | etcd put | " + " | ".join(builds) + " | " + " | ".join(f"{b} ÷ etcd" for b in builds) + " |")
    print("|---" * (2 + 2 * len(builds)) + "|")
    for figure in results["etcd"][0]:
        put = statistics.median(r[figure] for r in results["etcd"])
        medians = [statistics.median(r[figure] for r in results[b]) for b in builds]
        ratios = [f"{m / put:.2f}×" if put else "-" for m in medians]
        print(f"| {figure} | {put:,.1f} | " + " | ".join(f"{m:,.1f}" for m in medians) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
