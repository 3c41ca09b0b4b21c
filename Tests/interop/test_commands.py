"""Commands (CONTRACT 6.2) through the PyPI `varlink` client: executing a
command that `propctl serve` handles with examples/check-password.sh, and
python itself as a handler."""

import os
import subprocess
import threading

import pytest
import varlink

from conftest import REPO, propd_binary


def propctl_binary():
    return os.path.join(os.path.dirname(propd_binary()), "propctl")


def wait_for_key(propd, key):
    """Returns once `key` has been set: Subscribe, then wait for its event."""
    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        for reply in con.Subscribe([key], _more=True):
            event = reply["event"]
            if event["key"] == key:
                return event


@pytest.fixture
def served_login(propd):
    handler = subprocess.Popen(
        [propctl_binary(), "serve", "login.submit", "--", str(REPO / "examples" / "check-password.sh")],
        env={**os.environ, "PROPD_SOCKET": propd.socket},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        # The first Serve of login.submit creates login.submit.executing.
        assert wait_for_key(propd, "login.submit.executing")["value"] is False
        yield propd
    finally:
        handler.terminate()
        handler.wait(timeout=30)


def test_python_executes_a_command_served_by_propctl(served_login):
    with varlink.Client(address=served_login.address) as client, client.open("io.propd") as con:
        ok = con.Execute("login.submit", {"account": "ada.lovelace", "password": "analytical"})
        assert ok["result"]["account"] == "ada.lovelace"
        assert isinstance(ok["revision"], int)
        executing = con.Get(["login.submit.executing", "login.submit.error"])["properties"]
        assert executing[0]["value"] is False
        assert executing[0]["revision"] == ok["revision"]
        # The python client drops null members: error is null, so absent.
        assert executing[1].get("value") is None

        with pytest.raises(varlink.VarlinkError) as failed:
            con.Execute("login.submit", {"account": "ada.lovelace", "password": "guess"})
        assert failed.value.error() == "io.propd.CommandFailed"
        assert failed.value.parameters() == {"command": "login.submit", "message": "wrong account or password"}
        assert con.Get(["login.submit.error"])["properties"][0]["value"] == "wrong account or password"

        con.Set({"login.submit.enabled": False})
        with pytest.raises(varlink.VarlinkError) as disabled:
            con.Execute("login.submit", {"account": "ada.lovelace", "password": "analytical"})
        assert disabled.value.error() == "io.propd.CommandDisabled"
        assert disabled.value.parameters()["command"] == "login.submit"


def test_python_serves_and_completes_on_another_connection(propd):
    invocations = []

    def serve():
        with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
            for reply in con.Serve(["echo.cmd"], _more=True):
                invocation = reply["invocation"]
                invocations.append(invocation)
                # The Serve connection belongs to its stream: answer on another.
                with client.open("io.propd") as answers:
                    answers.Complete(invocation["id"], {"echo": invocation.get("argument")})
                return

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    wait_for_key(propd, "echo.cmd.executing")
    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        reply = con.Execute("echo.cmd", [1, "two"], 5000)
    server.join(timeout=30)
    assert reply["result"] == {"echo": [1, "two"]}
    assert invocations[0]["command"] == "echo.cmd"
    assert len(invocations[0]["id"]) == 32

    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        # Its handler left with the Serve connection.
        with pytest.raises(varlink.VarlinkError) as gone:
            con.Execute("echo.cmd")
        assert gone.value.error() == "io.propd.NoHandler"
        with pytest.raises(varlink.VarlinkError) as unknown:
            con.Complete(invocations[0]["id"], None, "late")
        assert unknown.value.error() == "io.propd.NoSuchInvocation"
