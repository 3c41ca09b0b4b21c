#!/usr/bin/env bash
# The shared kit's harness (../shared/bench/peers) on three servers,
# interleaved and rotated per round: the C floor server, the NIO floor
# server and propd (`normal`), each started fresh by the harness.
#
#   Benchmarks/NIOFloor/kit-side-by-side.sh PEERS_DIR PROPD FLOOR NIO_FLOOR [ROUNDS]
#
# PEERS_DIR is a copy of ../shared/bench/peers with its ./install.sh run
# once; FLOOR a build of ../Floor/durable_set_server.c; NIO_FLOOR
# .build/release/nio-floor-server of this package. Results go to
# PEERS_DIR/results/harness-nio-floor.jsonl (the harness appends).
set -euo pipefail
peers="$(cd "$1" && pwd)"; propd="$2"; floor="$3"; nio="$4"; rounds="${5:-5}"
cd "$peers"
harness=(python3 harness/bench.py --out results/harness-nio-floor.jsonl --max-seconds 8
    --runs 1 --tests seq,pipe,conc,notify --subs 100)
names=(floor nio-floor propd)
for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < 3; i++)); do
        case ${names[$(((i + round) % 3))]} in
            floor) "${harness[@]}" --target floor --variant NORMAL --server-cmd "$floor {sock} {dir}/floor.db {variant}" ;;
            nio-floor) "${harness[@]}" --target propd --variant nio-floor --server-cmd "$nio {sock} {dir}/floor.db NORMAL" ;;
            propd) "${harness[@]}" --target propd --variant normal \
                --server-cmd "$propd --socket {sock} --database {dir}/propd.db --bindings {dir}/bindings.d --durability normal" ;;
        esac
    done
done
