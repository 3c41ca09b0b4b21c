#!/usr/bin/env python3
"""PropdEtcd against etcd's own gateway through the shared peers harness, in
the same run on the same etcd: one etcd member on a free loopback port
(started by the kit's lib.servers.start_etcd), then ROUNDS interleaved rounds
of  harness(etcd: seq, conc)  and  propd-etcd-bench (seq, conc); medians and
ratios at the end.

    swift build -c release --product propd-etcd-bench
    python3 Benchmarks/Etcd/compare.py --rounds 5 --bench .build/release/propd-etcd-bench

The harness speaks etcd's JSON gateway (HTTP/1.1, base64) from Python over raw
sockets, PropdEtcd speaks gRPC (HTTP/2, protobuf) from Swift: the ratio says
what a propd node's etcd client costs against the cheapest client the kit has.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(os.environ.get("PEERS_KIT", Path(__file__).resolve().parents[3] / "shared/bench/peers"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bench", default=".build/release/propd-etcd-bench")
    ap.add_argument("--n-seq", type=int, default=3000)
    ap.add_argument("--n-conc", type=int, default=20000)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--max-seconds", type=float, default=10)
    a = ap.parse_args()

    sys.path.insert(0, str(KIT))
    from lib.servers import start_etcd  # noqa: E402

    server = start_etcd()
    host, port = server.addr
    url = f"http://{host}:{port}"
    out = Path(tempfile.mkdtemp(prefix="etcd-compare-")) / "harness.jsonl"
    harness, ours = [], []
    try:
        for r in range(a.rounds):
            cmd = [sys.executable, str(KIT / "harness/bench.py"), "--target", "etcd", "--tcp", f"{host}:{port}",
                   "--tests", "seq,conc", "--runs", "1", "--n-seq", str(a.n_seq), "--n-pipe", str(a.n_conc),
                   "--conns", str(a.conns), "--max-seconds", str(a.max_seconds), "--out", str(out)]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=KIT)
            recs = [json.loads(line) for line in out.read_text().splitlines()]
            seq = next(x["m"] for x in reversed(recs) if x["test"] == "seq")
            conc = next(x["m"] for x in reversed(recs) if x["test"] == "conc")
            harness.append({"p50": seq["p50_us"], "p99": seq["p99_us"], "conc": conc["sets_per_s"]})

            res = subprocess.run([a.bench, "--endpoints", url, "--n-seq", str(a.n_seq), "--n-conc", str(a.n_conc),
                                  "--conns", str(a.conns), "--max-seconds", str(a.max_seconds)],
                                 check=True, capture_output=True, text=True)
            m = json.loads(res.stdout.strip().splitlines()[-1])
            ours.append({"p50": m["seq_p50_us"], "p99": m["seq_p99_us"], "conc": m["conc_sets_per_s"]})
            print(f"round {r}: harness {harness[-1]}  propd-etcd {ours[-1]}", file=sys.stderr, flush=True)
    finally:
        server.stop()

    def med(rows, k):
        return statistics.median(x[k] for x in rows)

    print(f"| figure | etcd via harness (gateway) | PropdEtcd (gRPC) | ratio |")
    print(f"|---|---|---|---|")
    for k, name in (("p50", "sequential put p50 (µs)"), ("p99", "sequential put p99 (µs)"),
                    ("conc", f"{a.conns}-connection puts/s")):
        h, o = med(harness, k), med(ours, k)
        print(f"| {name} | {h:.0f} | {o:.0f} | {o / h:.2f}× |")
    print(f"\nmedians of {a.rounds} interleaved rounds; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
