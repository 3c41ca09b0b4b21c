#!/usr/bin/env bash
# The shared kit's harness (../shared/bench/peers) on the C floor server
# and on several builds of propd, interleaved and rotated per round, each
# server started fresh by the harness: builds compared in the same
# minutes, beside the floor.
#
#   Benchmarks/kit-builds.sh PEERS_DIR FLOOR ROUNDS TESTS DURABILITY LABEL=PROPD...
#
# PEERS_DIR is a copy of ../shared/bench/peers with its ./install.sh run
# once; FLOOR a build of Floor/durable_set_server.c; TESTS the harness's
# (e.g. seq,pipe,conc,notify); DURABILITY normal or full, for every
# server (the floor's NORMAL or FULL); each LABEL=PROPD a propd binary,
# its label the variant of its rows. Results are appended to
# PEERS_DIR/results/harness-builds.jsonl, one row per test and round.
set -euo pipefail
peers="$(cd "$1" && pwd)"; floor="$2"; rounds="$3"; tests="$4"; durability="$5"; shift 5
cd "$peers"
# The harness reads with 256 KiB buffers, which glibc either maps and
# unmaps one per reply or serves from the heap, as its moving mmap
# threshold settles for the command line (which differs from build to
# build here): fixed thresholds hold every run in the cheap mode
# (BENCHMARKS.md, "The kit's client"). The servers start without.
export MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=67108864
plain=(env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_)
harness=(python3 harness/bench.py --out results/harness-builds.jsonl --max-seconds 8
    --runs 1 --tests "$tests" --subs 100)
servers=("floor" "$@")
count=${#servers[@]}
for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < count; i++)); do
        server=${servers[$(((i + round) % count))]}
        if [ "$server" = floor ]; then
            "${harness[@]}" --target floor --variant "${durability^^}" --server-cmd "${plain[*]} $floor {sock} {dir}/floor.db {variant}"
        else
            "${harness[@]}" --target propd --variant "${server%%=*}" --server-cmd \
                "${plain[*]} ${server#*=} --socket {sock} --database {dir}/propd.db --bindings {dir}/bindings.d --durability $durability"
        fi
    done
done
