#!/usr/bin/env python3
"""RSS of a running propd under hostile connections (issue: memory per connection).

  connection_memory.py gets SOCKET PID      1,000 pipelined Gets of a 1 MiB value, read slowly
  connection_memory.py slowloris SOCKET PID 100 connections each sending part of a 4 MiB message
  connection_memory.py set-gets SOCKET PID  as gets, the Gets sent right behind a Set on the same connection

Prints the idle RSS, the peak RSS sampled while the attack runs, and the difference, in MiB.
"""
import json, socket, sys, time

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0

def call(sock, method, parameters):
    sock.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\0")

def recv_one(sock, buf):
    while b"\0" not in buf[0]:
        chunk = sock.recv(1 << 20)
        if not chunk:
            return None
        buf[0] += chunk
    msg, _, buf[0] = buf[0].partition(b"\0")
    return msg

def gets(path, pid, behind_a_set=False):
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    buf = [b""]
    call(s, "io.propd.Set", {"values": {"bench.big": "m" * (1 << 20)}}); recv_one(s, buf)
    idle = rss(pid)
    one = json.dumps({"method": "io.propd.Get", "parameters": {"keys": ["bench.big"]}}).encode() + b"\0"
    first = json.dumps({"method": "io.propd.Set", "parameters": {"values": {"bench.small": 1}}}).encode() + b"\0"
    s.sendall((first if behind_a_set else b"") + one * 1000)
    time.sleep(1.0)  # let the daemon do all it will before anything is read
    peak = rss(pid)
    for i in range(1001 if behind_a_set else 1000):
        recv_one(s, buf)
        if i % 20 == 0:
            peak = max(peak, rss(pid))
    return idle, peak

def slowloris(path, pid):
    idle = rss(pid)
    socks = []
    head = b'{"method": "io.propd.Set", "parameters": {"values": {"k": "'
    for _ in range(100):
        s = socket.socket(socket.AF_UNIX); s.connect(path); s.setblocking(False)
        try:
            s.send(head)
        except OSError:
            pass
        socks.append(s)
    peak = idle
    chunk = b"s" * 65536
    for _ in range(64):  # 4 MiB per connection, sent a chunk at a time
        for s in socks:
            try:
                s.send(chunk)
            except OSError:
                pass
        peak = max(peak, rss(pid))
    time.sleep(1.0)
    peak = max(peak, rss(pid))
    for s in socks:
        s.close()
    return idle, peak

if __name__ == "__main__":
    mode, path, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "set-gets":
        idle, peak = gets(path, pid, behind_a_set=True)
    else:
        idle, peak = (gets if mode == "gets" else slowloris)(path, pid)
    print(f"{mode}: idle {idle / 2**20:.1f} MiB, peak {peak / 2**20:.1f} MiB, above idle {(peak - idle) / 2**20:.1f} MiB")
