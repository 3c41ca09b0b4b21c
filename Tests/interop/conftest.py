"""Starts a real propd for the interoperability tests, on a private socket and
database, and stops it afterwards."""

import os
import pathlib
import socket
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PROPD_IDL = (REPO / "schema" / "io.propd.varlink").read_text()


def propd_binary():
    explicit = os.environ.get("PROPD_BIN")
    if explicit:
        return explicit
    path = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    return os.path.join(path, "propd")


def ready_listener(directory):
    """A notify socket as systemd would pass it: propd sends READY=1 on it
    once it serves, so the tests wait on that event instead of polling."""
    path = os.path.join(directory, "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(path)
    return listener, path


def wait_until_ready(proc, listener, timeout=60.0):
    listener.settimeout(timeout)
    while True:
        try:
            message = listener.recv(4096).decode()
        except socket.timeout:
            proc.kill()
            raise TimeoutError(f"propd sent no READY=1 within {timeout}s")
        if "READY=1" in message.split("\n"):
            return


class Propd:
    def __init__(self, directory):
        self.socket = os.path.join(directory, "propd.sock")
        self.database = os.path.join(directory, "propd.db")
        self.address = f"unix:{self.socket}"
        self.log_path = os.path.join(directory, "propd.log")
        # A file, not a pipe: nobody drains a pipe while the tests run.
        self.log = open(self.log_path, "w")
        listener, notify_path = ready_listener(directory)
        self.proc = subprocess.Popen(
            [propd_binary(), "--socket", self.socket, "--database", self.database,
             "--bindings", os.path.join(directory, "bindings.d"), "--durability", "normal"],
            stdout=subprocess.DEVNULL, stderr=self.log, text=True,
            env={**os.environ, "NOTIFY_SOCKET": notify_path},
        )
        with listener:
            try:
                wait_until_ready(self.proc, listener)
            except Exception:
                self.log.close()
                raise RuntimeError(f"propd did not start: {open(self.log_path).read()}")

    def stop(self):
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        self.log.close()
        assert code == 0, f"propd exited with {code}: {open(self.log_path).read()}"


@pytest.fixture
def propd():
    with tempfile.TemporaryDirectory(prefix="propd-interop-") as directory:
        daemon = Propd(directory)
        try:
            yield daemon
        finally:
            daemon.stop()
