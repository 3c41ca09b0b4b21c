# Sourced by the kit scripts (kit-cpu.sh, kit-wal-pages.sh): starts one
# server for the shared kit's client, fresh, in DIR, and waits for its
# socket, DIR/s.sock.
#
#   kit_server_start LABEL=SERVER DIR DURABILITY   # sets kit_server_pid
#
# The label `floor` names a build of Floor/durable_set_server.c, started
# as the kit starts it (SOCKET DATABASE NORMAL|FULL); any other SERVER is
# propd, or a script that execs propd with more flags (its PID stays the
# server's). The servers start without the client's malloc thresholds
# (BENCHMARKS.md, "The kit's client"); the database is DIR/s.db.
kit_server_start() {
    local build="$1" dir="$2" durability="$3"
    mkdir -p "$dir/bindings.d"
    if [ "${build%%=*}" = floor ]; then
        env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_ "${build#*=}" "$dir/s.sock" "$dir/s.db" \
            "${durability^^}" >/dev/null 2>&1 &
    else
        env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_ "${build#*=}" --socket "$dir/s.sock" \
            --database "$dir/s.db" --bindings "$dir/bindings.d" --durability "$durability" >/dev/null 2>&1 &
    fi
    kit_server_pid=$!
    for _ in $(seq 200); do [ -S "$dir/s.sock" ] && return 0; sleep 0.05; done
    echo "kit-server.sh: ${build%%=*} made no socket in 10 s" >&2
    return 1
}
