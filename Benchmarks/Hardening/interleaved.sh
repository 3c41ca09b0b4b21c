#!/usr/bin/env bash
# Two propd builds compared side by side, interleaved (A, B, A, B, ...), a
# fresh `propd --durability normal` per measurement:
#
#   Benchmarks/Hardening/interleaved.sh A_BIN_DIR B_BIN_DIR [ROUNDS] [MODES]
#
# A_BIN_DIR and B_BIN_DIR each hold a propd (e.g. copies of .build/release/propd
# of the two trees); propd-bench is taken from A_BIN_DIR. MODES (default
# "gets slowloris sets") picks what is measured each round: `gets` and
# `slowloris` run connection_memory.py (RSS above idle), `sets` runs
# `propd-bench pipelined --connections 1 16 --runs 1`. One line per
# measurement on stdout: LABEL roundN RESULT (A or B as LABEL).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
a="$1"; b="$2"; rounds="${3:-6}"; modes="${4:-gets slowloris sets}"
work="$(mktemp -d /tmp/propd-interleaved.XXXXXX)"
trap 'rm -rf "$work"' EXIT
pid=""
start() {
    local dir="$work/run"; rm -rf "$dir"; mkdir -p "$dir/b"
    "$1/propd" --socket "$dir/s.sock" --database "$dir/db" --bindings "$dir/b" --durability normal 2>"$dir/log" &
    pid=$!
    for _ in $(seq 100); do [ -S "$dir/s.sock" ] && return; sleep 0.1; done
    echo "propd in $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
for round in $(seq "$rounds"); do
    for label in A B; do
        bin="$a"; [ "$label" = B ] && bin="$b"
        for mode in $modes; do
            start "$bin"
            case "$mode" in
            gets | slowloris | set-gets) result="$(python3 "$here/connection_memory.py" "$mode" "$work/run/s.sock" "$pid")" ;;
            sets) result="$("$a/propd-bench" pipelined --socket "$work/run/s.sock" --connections 1 16 --runs 1 --json --quiet | tr -d '\n')" ;;
            esac
            stop
            echo "$label round$round $result"
        done
    done
done
