#!/usr/bin/env python3
"""A writer's Set round trip while SUBSCRIBERS connections watch its key.

    python3 Benchmarks/Fanout/writer_beside_subscribers.py SOCKET [SUBSCRIBERS] [SETS] [--paced]

The subscribers live in a process of their own and read every event. The
writer sends one Set at a time and waits for its reply: back to back, or
`--paced` 0.5 ms apart so that each Set finds the daemon idle (the
reply's own latency, not the fan-out's throughput). Prints the writer's
Sets/s and its round trip's p50 and p99 (the first 100 Sets left out).
Only the standard library: Debian's own python3 runs it.
"""
import json
import multiprocessing
import select
import socket
import statistics
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s


def read_events(path, count, key, ready, stop):
    """Subscribes `count` connections to `key`, then reads whatever comes."""
    subscribers = []
    for _ in range(count):
        s = connect(path)
        call = {"method": "io.propd.Subscribe", "parameters": {"patterns": [key], "initial": False}, "more": True}
        s.sendall(json.dumps(call).encode() + b"\0")
        subscribers.append(s)
    for s in subscribers:
        received = b""
        while b'"synced"' not in received:
            received += s.recv(65536)
        s.setblocking(False)
    ready.set()
    poll = select.epoll()
    by_fd = {s.fileno(): s for s in subscribers}
    for fd in by_fd:
        poll.register(fd, select.EPOLLIN)
    while not stop.is_set():
        for fd, _ in poll.poll(0.1):
            try:
                by_fd[fd].recv(1 << 16)
            except BlockingIOError:
                pass


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    paced = "--paced" in sys.argv
    path = args[0]
    count = int(args[1]) if len(args) > 1 else 100
    sets = int(args[2]) if len(args) > 2 else 3000
    key = "bench.writer"
    ready, stop = multiprocessing.Event(), multiprocessing.Event()
    reader = multiprocessing.Process(target=read_events, args=(path, count, key, ready, stop))
    reader.start()
    ready.wait()
    writer = connect(path)
    trips = []
    for i in range(sets):
        call = {"method": "io.propd.Set", "parameters": {"values": {key: i}}}
        start = time.perf_counter_ns()
        writer.sendall(json.dumps(call).encode() + b"\0")
        reply = b""
        while not reply.endswith(b"\0"):
            reply += writer.recv(4096)
        trips.append((time.perf_counter_ns() - start) / 1000)
        if paced:
            time.sleep(0.0005)
    stop.set()
    reader.join()
    measured = sorted(trips[100:])
    rate = "" if paced else f"sets_per_s={len(trips) / (sum(trips) / 1e6):.0f} "
    print(f"{rate}p50_us={statistics.median(measured):.1f} p99_us={measured[int(len(measured) * 0.99)]:.1f}")


if __name__ == "__main__":
    main()
