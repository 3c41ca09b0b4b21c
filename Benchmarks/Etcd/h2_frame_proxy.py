#!/usr/bin/env python3
"""A TCP proxy that logs the HTTP/2 frame headers crossing it, one line per
frame: direction (C = client to server, S = server to client, with the
connection's number), type, stream, length, flags, and the fields that say
why a connection ended (RST_STREAM and GOAWAY codes, WINDOW_UPDATE
increments, SETTINGS values). Plaintext HTTP/2 only (h2c, as etcd serves on
http:// URLs).

    python3 Benchmarks/Etcd/h2_frame_proxy.py LISTEN_PORT ETCD_PORT frames.log &
    propd-etcd-bench --endpoints http://127.0.0.1:LISTEN_PORT --n-seq 250 --conns 1 --n-conc 1
    grep -c 'S1> PING' frames.log      # PINGs the server sent on connection 1
"""
import socket
import sys
import threading

TYPES = {0: "DATA", 1: "HEADERS", 2: "PRIORITY", 3: "RST_STREAM", 4: "SETTINGS", 5: "PUSH_PROMISE",
         6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE", 9: "CONTINUATION"}
PREFACE_LENGTH = 24  # "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", sent by the client only

lock = threading.Lock()


def flag_names(kind, flags):
    names = []
    if flags & 0x1:
        names.append("ACK" if kind in (4, 6) else "END_STREAM")
    if flags & 0x4 and kind in (1, 9):
        names.append("END_HEADERS")
    if flags & 0x8:
        names.append("PADDED")
    if flags & 0x20 and kind == 1:
        names.append("PRIORITY")
    return "|".join(names)


def details(kind, flags, payload):
    word = lambda at: int.from_bytes(payload[at:at + 4], "big")
    if kind == 3:
        return f" code={word(0)}"
    if kind == 8:
        return f" increment={word(0)}"
    if kind == 7:
        return f" last_stream={word(0) & 0x7FFFFFFF} code={word(4)} debug={payload[8:]!r}"
    if kind == 4 and not flags & 0x1:
        return " " + ",".join(f"{int.from_bytes(payload[i:i + 2], 'big')}={word(i + 2)}"
                              for i in range(0, len(payload), 6))
    return ""


def pump(source, sink, tag, out, skip_preface):
    pending = b""
    while True:
        try:
            data = source.recv(65536)
        except OSError:
            data = b""
        if not data:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            with lock:
                out.write(f"{tag} EOF\n")
                out.flush()
            return
        sink.sendall(data)
        pending += data
        if skip_preface:
            if len(pending) < PREFACE_LENGTH:
                continue
            pending, skip_preface = pending[PREFACE_LENGTH:], False
        while len(pending) >= 9:
            length = int.from_bytes(pending[0:3], "big")
            if len(pending) < 9 + length:
                break
            kind, flags = pending[3], pending[4]
            stream = int.from_bytes(pending[5:9], "big") & 0x7FFFFFFF
            payload, pending = pending[9:9 + length], pending[9 + length:]
            line = f"{tag} {TYPES.get(kind, kind)} stream={stream} length={length} {flag_names(kind, flags)}"
            with lock:
                out.write(line + details(kind, flags, payload) + "\n")
                out.flush()


def main():
    listen_port, target_port, log_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    out = open(log_path, "a")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", listen_port))
    listener.listen(16)
    number = 0
    while True:
        client, _ = listener.accept()
        number += 1
        server = socket.create_connection(("127.0.0.1", target_port))
        # Forward each write at once: Nagle and delayed ACKs would add tens of ms per request.
        for side in (client, server):
            side.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with lock:
            out.write(f"== connection {number}\n")
        threading.Thread(target=pump, args=(client, server, f"C{number}>", out, True), daemon=True).start()
        threading.Thread(target=pump, args=(server, client, f"S{number}>", out, False), daemon=True).start()


if __name__ == "__main__":
    main()
