#!/usr/bin/env python3
"""The shared kit's notify test (Set -> event latency) with the subscribers on another
propd node than the writer: the kit's harness, unchanged but for where a subscriber
connects. Started through Benchmarks/Etcd/propd-on-etcd.sh with PROPD_NODES=2 (node A on
{sock}, node B on {sock}.b); every connection the subscriber process opens goes to node B.

  PROPD_ETCD_BIN=.build-release/release/propd python3 Benchmarks/Etcd/cross-node-notify.py \\
      --out RESULTS.jsonl --target propd --variant cross-node --tests notify --subs 1 \\
      --server-cmd "env PROPD_NODES=2 bash $PWD/Benchmarks/Etcd/propd-on-etcd.sh {sock} {dir}"

Any other argument is the harness's own (run from ../shared/bench/peers, as Benchmarks/Etcd/
kit-side-by-side.sh does).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "harness"))
sys.path.insert(0, os.getcwd())
import bench  # noqa: E402  the kit's harness
from targets.propd import PropdTarget  # noqa: E402

WRITER = os.getpid()
connect = PropdTarget.connect


def connect_by_role(self):
    # The harness forks one process for the subscribers; the writer stays in this one.
    if os.getpid() == WRITER:
        return connect(self)
    from lib.servers import connect as open_socket
    return open_socket(self.addr + ".b", timeout=10)


PropdTarget.connect = connect_by_role
sys.argv[0] = "harness/bench.py"
bench.main()
