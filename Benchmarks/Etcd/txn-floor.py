#!/usr/bin/env python3
"""etcd's own cost of the transaction every propd write is, against a plain put:
one fresh etcd member (started as Benchmarks/Etcd/propd-on-etcd.sh starts it, stopped
by PID), HTTP/1.1 keep-alive clients of its JSON gateway (the kit's etcd target
speaks the same), interleaved rounds of each shape:

  put      /v3/kv/put  one key, 100-byte value
  txn      /v3/kv/txn  propd's shape: compare on the property row and on `bindings`,
                       put the property row and `head`, read `head` when a compare fails
  guarded  /v3/kv/txn  propd's compares and the property row's put alone (no `head`)
  bare     /v3/kv/txn  the property row's put alone, no compare: the least a transaction is

Each round measures, per shape, N sequential requests from one client (p50 latency),
then --seconds of requests from --connections client processes at once (requests/s,
and etcd's CPU per request from /proc/PID/stat, all threads).

Run beside Benchmarks/Etcd/kit-side-by-side.sh, in the same minutes:
  python3 Benchmarks/Etcd/txn-floor.py --rounds 3 --n 2000
"""
import argparse, base64, http.client, json, multiprocessing, signal, socket, statistics, subprocess, tempfile, time


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


def b64(text):
    return base64.b64encode(text.encode()).decode()


VALUE = b64("x" * 100)


def row(i, writer):
    return b64(f"/bench/p/w{writer}k{i % 100}")


def shape(name, i, writer=0):
    compares = [
        {"key": row(i, writer), "result": "NOT_EQUAL", "target": "MOD", "mod_revision": "1"},
        {"key": b64("/bench/bindings"), "result": "EQUAL", "target": "MOD", "mod_revision": "0"}]
    put_row = {"request_put": {"key": row(i, writer), "value": VALUE}}
    if name == "put":
        return "/v3/kv/put", {"key": row(i, writer), "value": VALUE}
    if name == "txn":
        return "/v3/kv/txn", {
            "compare": compares,
            "success": [put_row, {"request_put": {"key": b64("/bench/head"), "value": b64(f"node-{i}")}}],
            "failure": [{"request_range": {"key": b64("/bench/head")}}]}
    if name == "guarded":
        return "/v3/kv/txn", {"compare": compares, "success": [put_row]}
    return "/v3/kv/txn", {"success": [put_row]}


SHAPES = ["put", "txn", "guarded", "bare"]


def post(connection, path, body):
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    reply = connection.getresponse(); reply.read()
    assert reply.status == 200, reply.status


def writer(port, name, number, until, counts):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    done = 0
    while time.time() < until:
        post(connection, *shape(name, done, number)); done += 1
    counts.put(done)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=4)
    a = ap.parse_args()
    directory = tempfile.mkdtemp(prefix="txn-floor-")
    client, peer, metrics = free_port(), free_port(), free_port()
    etcd = subprocess.Popen([
        "etcd", "--name", "floor", "--data-dir", f"{directory}/data",
        "--listen-client-urls", f"http://127.0.0.1:{client}", "--advertise-client-urls", f"http://127.0.0.1:{client}",
        "--listen-peer-urls", f"http://127.0.0.1:{peer}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
        "--initial-cluster", f"floor=http://127.0.0.1:{peer}", "--initial-cluster-state", "new",
        "--logger", "zap", "--log-outputs", f"{directory}/etcd.log", "--log-level", "warn",
        "--listen-metrics-urls", f"http://127.0.0.1:{metrics}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ticks_per_second = 100
    try:
        connection = None
        deadline = time.time() + 20
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", client)
                connection.request("GET", "/health"); connection.getresponse().read(); break
            except OSError:
                if time.time() > deadline: raise
                time.sleep(0.1)  # start-up polling, bounded by the deadline

        p50 = {name: [] for name in SHAPES}
        rate = {name: [] for name in SHAPES}
        cpu = {name: [] for name in SHAPES}
        for round in range(a.rounds):
            for name in SHAPES:
                times = []
                for i in range(a.n):
                    start = time.perf_counter(); post(connection, *shape(name, i)); times.append((time.perf_counter() - start) * 1e6)
                times.sort()
                p50[name].append(times[len(times) // 2])
                counts = multiprocessing.Queue()
                until = time.time() + a.seconds
                before = cpu_ticks(etcd.pid)
                writers = [multiprocessing.Process(target=writer, args=(client, name, w, until, counts))
                           for w in range(a.connections)]
                for w in writers: w.start()
                for w in writers: w.join()
                done = sum(counts.get() for _ in writers)
                used = (cpu_ticks(etcd.pid) - before) / ticks_per_second
                rate[name].append(done / a.seconds)
                cpu[name].append(used / done * 1e6)
                print(f"round {round + 1} {name}: sequential p50 {p50[name][-1]:.0f} us; "
                      f"{a.connections} connections {rate[name][-1]:.0f}/s, etcd CPU {cpu[name][-1]:.0f} us per request")
        put = {"p50": statistics.median(p50["put"]), "rate": statistics.median(rate["put"]), "cpu": statistics.median(cpu["put"])}
        print(f"medians of {a.rounds} rounds, each shape against the put:")
        for name in SHAPES:
            m = {"p50": statistics.median(p50[name]), "rate": statistics.median(rate[name]), "cpu": statistics.median(cpu[name])}
            print(f"  {name:8} p50 {m['p50']:5.0f} us ({m['p50'] / put['p50']:.2f}x)  "
                  f"{m['rate']:6.0f}/s ({m['rate'] / put['rate']:.2f}x)  etcd CPU {m['cpu']:4.0f} us ({m['cpu'] / put['cpu']:.2f}x)")
    finally:
        etcd.send_signal(signal.SIGTERM); etcd.wait()


if __name__ == "__main__":
    main()
