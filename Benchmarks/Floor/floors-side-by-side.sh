#!/usr/bin/env bash
# The floor servers and propd, interleaved under propd-bench: the C floor
# server (durable_set_server.c), its variants with propd's SQL, other
# history layouts or the SQLite propd links, the same server in Swift on
# SwiftNIO (../NIOFloor), and propd itself. Each measurement starts its
# server fresh. Run it from a checkout where propd was built (the SQLite
# propd links is compiled from that build's package checkouts).
#
#   Benchmarks/Floor/floors-side-by-side.sh BIN_DIR [ROUNDS] [MODES] [SERVERS]
#
# BIN_DIR holds release builds of propd and propd-bench; the floors are
# built into a temporary directory. MODES (default "pipelined concurrent
# sequential"); SERVERS (default: all of those below). One line per
# measurement on stdout: ROUND MODE SERVER RESULT, where RESULT is
# "Sets/s CPU-per-Set" (16 connections) or "p50 CPU-per-Set" of sequential
# Sets (µs; the CPU is the server's, all threads, from /proc).
# The socket round trip (`uds_pingpong rtt`, 64 bytes) before and after,
# on stderr, says how fast the VM was in those minutes. With PROPD_BEFORE
# (another build of propd) set, the server "propd-before" runs it: name it
# in SERVERS to compare two builds in the same rounds. "propd-untrimmed" is
# propd keeping every value (`--history-per-key 10000000`: nothing is
# trimmed in a run), what propd's history trim costs beside the floors,
# which never trim. "nio-floor-trimmed" is the NIO floor with propd's
# `properties` and a rowid history keeping 100 rows per key, as
# "rowid-chain-trimmed" in C: the least a server on propd's stack does
# to keep a bounded history; "nio-floor-bulk" trims that history every
# 1,000 Sets in one range delete, as "rowid-chain-bulk". "epoll-floor" is
# the C floor in Swift on epoll(7) without SwiftNIO (../NIOFloor too): what
# Swift costs apart from NIO. The Swift floors are built only when SERVERS
# names one of them. "propd-sql-multi-row" writes propd's
# rows of an epoll round with one multi-row statement per table, as
# propd's writer writes the Sets it holds back (`PendingSets`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(cd "$1" && pwd)"; rounds="${2:-5}"; modes="${3:-pipelined concurrent sequential}"
servers="${4:-floor floor-vendored-sqlite floor-key-index propd-sql propd-sql-known-head propd-sql-multi-row rowid-chain rowid-chain-trimmed rowid-chain-bulk ring nio-floor nio-floor-trimmed nio-floor-bulk epoll-floor propd}"
work="$(mktemp -d /tmp/propd-floors.XXXXXX)"
trap 'rm -rf "$work"' EXIT

build() { gcc -O2 -Wall "$@" "$here/durable_set_server.c" -lsqlite3; }
build -o "$work/floor"
build -DHISTORY_BY_KEY -o "$work/floor-key-index"
build -DPROPD_SQL -o "$work/propd-sql"
build -DPROPD_SQL -DKNOWN_HEAD -o "$work/propd-sql-known-head"
build -DPROPD_SQL -DKNOWN_HEAD -DMULTI_ROW -o "$work/propd-sql-multi-row"
build -DROWID_CHAIN -o "$work/rowid-chain"
build -DROWID_CHAIN -DTRIM_KEEP=100 -o "$work/rowid-chain-trimmed"
build -DROWID_CHAIN -DTRIM_KEEP=100 -DBULK_TRIM=1000 -o "$work/rowid-chain-bulk"
build -DRING_HISTORY -DTRIM_KEEP=100 -o "$work/ring"
# The C floor on the SQLite propd links (the amalgamation in propd's
# checkout of vapor/sqlite-nio, compiled with that package's options that
# bear on speed) rather than the system's: what SQLite's build is worth.
vendored="$here/../../.build/checkouts/sqlite-nio/Sources/VaporCSQLite"
if [ -f "$vendored/sqlite_nio_sqlite3.c" ]; then
    gcc -O2 -w -DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_DQS=0 -DSQLITE_OMIT_DEPRECATED -DSQLITE_OMIT_SHARED_CACHE \
        -DSQLITE_OMIT_PROGRESS_CALLBACK -DSQLITE_OMIT_TRACE -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_SECURE_DELETE \
        -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1 -DSQLITE_UNTESTABLE \
        -c "$vendored/sqlite_nio_sqlite3.c" -o "$work/vendored-sqlite.o"
    gcc -O2 -Wall -DVENDORED_SQLITE -I "$vendored/include" "$here/durable_set_server.c" "$work/vendored-sqlite.o" \
        -lpthread -lm -o "$work/floor-vendored-sqlite"
fi
gcc -O2 -Wall "$here/../../../shared/bench/peers/c/uds_pingpong.c" -o "$work/uds_pingpong" 2>/dev/null || true
case " $servers " in
    *" nio-floor "* | *" nio-floor-trimmed "* | *" nio-floor-bulk "* | *" epoll-floor "*)
        (cd "$here/../NIOFloor" && swift build -c release >&2 &&
            cp .build/release/nio-floor-server "$work/nio-floor" &&
            cp .build/release/epoll-floor-server "$work/epoll-floor") ;;
esac

# propd's statements run on a database propd made: its schema, indexes and all.
mkdir -p "$work/template/b"
"$bin/propd" --socket "$work/template/s.sock" --database "$work/template/db" --bindings "$work/template/b" >/dev/null 2>&1 &
for _ in $(seq 100); do [ -S "$work/template/s.sock" ] && break; sleep 0.1; done
kill $!; wait $! 2>/dev/null || true

rtt() { [ -x "$work/uds_pingpong" ] && "$work/uds_pingpong" rtt "$work/pp.sock" 64 20000 10 | tail -1 >&2 || true; }
rtt
pid=""
# A build of propd (its path, then extra flags) in the background, on the run's files.
start_propd() {
    "$1" --socket "$dir/s.sock" --database "$dir/db" --bindings "$dir/b" --durability normal "${@:2}" \
        >/dev/null 2>"$dir/log" &
}
start() {
    local dir="$work/run"; rm -rf "$dir"; mkdir -p "$dir/b"
    case $1 in
        propd) start_propd "$bin/propd" ;;
        propd-before) start_propd "$PROPD_BEFORE" ;;
        propd-untrimmed) start_propd "$bin/propd" --history-per-key 10000000 ;;
        propd-sql*) cp "$work/template/db" "$dir/db"; "$work/$1" "$dir/s.sock" "$dir/db" NORMAL >/dev/null 2>"$dir/log" & ;;
        nio-floor-trimmed) "$work/nio-floor" "$dir/s.sock" "$dir/db" NORMAL 100 >/dev/null 2>"$dir/log" & ;;
        nio-floor-bulk) "$work/nio-floor" "$dir/s.sock" "$dir/db" NORMAL 100 1000 >/dev/null 2>"$dir/log" & ;;
        *) "$work/$1" "$dir/s.sock" "$dir/db" NORMAL >/dev/null 2>"$dir/log" & ;;
    esac
    pid=$!
    for _ in $(seq 200); do [ -S "$dir/s.sock" ] && return; sleep 0.05; done
    echo "$1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
for round in $(seq "$rounds"); do
    for mode in $modes; do
        for server in $servers; do
            start "$server"
            if [ "$mode" = sequential ]; then
                result=$("$bin/propd-bench" sequential --socket "$work/run/s.sock" --runs 1 --calls 5000 \
                    --pid "$pid" 2>&1 | grep -E '^\[sequential run' \
                    | sed -E 's/.*Set p50=([0-9.]+)µs.*CPU per call=([0-9.]+)µs.*/\1 \2/')
            else
                result=$("$bin/propd-bench" "$mode" --socket "$work/run/s.sock" --connections 16 --seconds 3 \
                    --pid "$pid" --runs 1 2>&1 | grep -E '^\[' | tail -1 | sed -E 's/.*conn=//; s/Sets.s *propd CPU per Set=/ /')
            fi
            echo "$round $mode $server $result"
            stop
        done
    done
done
rtt
