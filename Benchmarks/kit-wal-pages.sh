#!/usr/bin/env bash
# What each server's transactions write to SQLite's log, by table: the
# shared kit's client drives one server at a time; a few seconds in, the
# server is stopped (SIGSTOP) while its database and log are copied, then
# resumed. The copy's log is read frame by frame since its last restart:
# its transactions (a commit frame ends each), their frames, and the
# B-tree each frame's page belongs to (SQLite's `dbstat`, on the copy).
#
#   Benchmarks/kit-wal-pages.sh PEERS_DIR TEST DURABILITY LABEL=SERVER...
#
# As kit-cpu.sh: PEERS_DIR a copy of ../shared/bench/peers with its
# ./install.sh run once, TEST one of the harness's (pipe, conc), CONNS
# the connections of `conc` (default 16), `floor=FLOOR` a build of
# Floor/durable_set_server.c (kit-server.sh starts each). One block per server: its transactions
# read, frames per transaction, then frames per transaction of each table
# (`?` for a page of no table: the free list).
set -euo pipefail
peers="$(cd "$1" && pwd)"; test="$2"; durability="$3"; shift 3
source "$(dirname "$0")/kit-server.sh"
work="$(mktemp -d /tmp/propd-kit-wal.XXXXXX)"
trap 'rm -rf "$work"' EXIT
export MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=67108864
for build in "$@"; do
    dir="$work/run"; rm -rf "$dir"; mkdir -p "$dir/copy"
    kit_server_start "$build" "$dir" "$durability"
    pid=$kit_server_pid
    (cd "$peers" && python3 harness/bench.py --target propd --socket "$dir/s.sock" --tests "$test" \
        --conns "${CONNS:-16}" --runs 1 --max-seconds 6 --n-pipe 2000000 --out "$dir/out.jsonl" >/dev/null 2>&1) &
    client=$!
    # A moment into the run, whatever it is doing: the copy is of a server at rest.
    sleep 2.5
    kill -STOP $pid
    cp "$dir/s.db" "$dir/copy/s.db"; cp "$dir/s.db-wal" "$dir/copy/s.db-wal"
    kill -CONT $pid
    wait $client || true
    kill $pid; wait $pid 2>/dev/null || true
    python3 - "$dir/copy/s.db" "${build%%=*}" <<'PY'
import collections, sqlite3, struct, sys
database, label = sys.argv[1:]
log = open(database + "-wal", "rb").read()
page_size, _, salt1, salt2 = struct.unpack(">IIII", log[8:24])
frame, offset, transactions, current = 24 + page_size, 32, [], []
while offset + frame <= len(log):
    page, size_after_commit, s1, s2 = struct.unpack(">IIII", log[offset:offset + 16])
    if (s1, s2) != (salt1, salt2):
        break  # a frame of the log before its last restart
    current.append(page)
    if size_after_commit:
        transactions.append(current)
        current = []
    offset += frame
# Read after the frames: opening the copy may checkpoint its log.
owner = dict((page, name) for name, page in sqlite3.connect(database).execute("SELECT name, pageno FROM dbstat"))
count = max(1, len(transactions))
print(f"{label}: {len(transactions)} transactions, {sum(map(len, transactions)) / count:.2f} frames each")
tables = collections.Counter(owner.get(page, "?") for pages in transactions for page in pages)
for table, frames in tables.most_common():
    print(f"  {frames / count:5.2f} {table}")
PY
done
