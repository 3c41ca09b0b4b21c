"""An independent client proves the wire: the PyPI `varlink` package, through
its library and through its CLI, against a real propd process."""

import json
import os
import subprocess
import sys

import pytest
import varlink

from conftest import PROPD_IDL


def test_get_info_lists_both_interfaces(propd):
    with varlink.Client(address=propd.address) as client:
        with client.open("org.varlink.service") as service:
            info = service.GetInfo()
    assert info["product"] == "propd"
    assert "io.propd" in info["interfaces"]
    assert "org.varlink.service" in info["interfaces"]


def test_interface_description_is_the_idl_byte_for_byte(propd):
    with varlink.Client(address=propd.address) as client:
        with client.open("org.varlink.service") as service:
            reply = service.GetInterfaceDescription("io.propd")
    assert reply["description"] == PROPD_IDL


def test_set_get_round_trip_keeps_json_types(propd):
    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        values = {
            "room.temp": 21,
            "room.humidity": 45.5,
            "room.name": "kitchen",
            "room.on": True,
            "room.tags": ["a", 1, None],
            "room.meta": {"floor": 1},
            "room.none": None,
        }
        revision = con.Set(values)["revision"]
        assert revision >= 1
        props = con.Get(sorted(values))["properties"]
    by_key = {p["key"]: p for p in props}
    for key, value in values.items():
        # The python client drops members whose value is null, so a stored
        # JSON null reads back as an absent member there.
        assert by_key[key].get("value") == value
        assert by_key[key]["revision"] == revision
        assert by_key[key]["created"] == revision
    assert type(by_key["room.temp"]["value"]) is int


def test_errors_arrive_with_their_names_and_parameters(propd):
    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        with pytest.raises(varlink.VarlinkError) as missing:
            con.Get(["does.not.exist"])
        assert missing.value.error() == "io.propd.NoSuchKey"
        assert missing.value.parameters()["key"] == "does.not.exist"

        rev = con.Set({"guarded.key": 1})["revision"]
        with pytest.raises(varlink.VarlinkError) as mismatch:
            con.Set({"guarded.key": 2}, {"guarded.key": rev + 100})
        assert mismatch.value.error() == "io.propd.RevisionMismatch"
        assert mismatch.value.parameters() == {"key": "guarded.key", "expected": rev + 100, "actual": rev}
        assert con.Get(["guarded.key"])["properties"][0]["value"] == 1


def test_bind_derives_and_subscribe_streams(propd):
    with varlink.Client(address=propd.address) as client:
        with client.open("io.propd") as con:
            con.Set({"form.account": "ada", "form.password": "x"})
            bound = con.Bind(
                "ui.login.enabled",
                "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }",
            )
            assert bound["sources"] == ["form.account", "form.password"]
            enabled = con.Get(["ui.login.enabled"])["properties"][0]
            assert enabled["value"] is False
            assert enabled["binding"].startswith("combineLatest")

        with client.open("io.propd") as watcher, client.open("io.propd") as writer:
            stream = watcher.Subscribe(["ui.login.*"], _more=True)
            first = next(stream)["event"]
            assert first["kind"] == "initial" and first["key"] == "ui.login.enabled" and first["value"] is False
            synced = next(stream)["event"]
            assert synced["kind"] == "synced" and synced["key"] == ""
            revision = writer.Set({"form.account": "ada.lovelace", "form.password": "analytical"})["revision"]
            live = next(stream)["event"]
            assert live == {"key": "ui.login.enabled", "kind": "set", "value": True, "revision": revision}


def test_keys_that_expire_are_deleted_as_a_revision_of_their_own(propd):
    with varlink.Client(address=propd.address) as client:
        with client.open("io.propd") as watcher, client.open("io.propd") as writer:
            stream = watcher.Subscribe(["lease.*"], initial=False, _more=True)
            assert next(stream)["event"]["kind"] == "synced"
            written = writer.Set({"lease.a": "held"}, None, 300)["revision"]
            lease = writer.Get(["lease.a"])["properties"][0]
            assert isinstance(lease.get("expires"), int), lease
            assert next(stream)["event"] == {"key": "lease.a", "kind": "set", "value": "held", "revision": written}
            expired = next(stream)["event"]
            assert expired == {"key": "lease.a", "kind": "delete", "revision": written + 1}
            with pytest.raises(varlink.VarlinkError) as refused:
                writer.Set({"lease.b": 1}, None, 0)
            assert refused.value.error() == "org.varlink.service.InvalidParameter"
            assert refused.value.parameters()["parameter"] == "ttl"


def run_cli(*args):
    result = subprocess.run(
        [sys.executable, "-m", "varlink.cli", *args], capture_output=True, text=True, timeout=60
    )
    return result


def test_cli_call_set_and_get(propd):
    set_result = run_cli("call", f"{propd.address}/io.propd.Set", json.dumps({"values": {"cli.value": 42}}))
    assert set_result.returncode == 0, set_result.stderr
    revision = json.loads(set_result.stdout)["revision"]
    get_result = run_cli("call", f"{propd.address}/io.propd.Get", json.dumps({"keys": ["cli.value"]}))
    assert get_result.returncode == 0, get_result.stderr
    prop = json.loads(get_result.stdout)["properties"][0]
    assert prop["value"] == 42 and prop["revision"] == revision


def test_cli_info_and_help(propd):
    info = run_cli("info", propd.address)
    assert info.returncode == 0, info.stderr
    assert "io.propd" in info.stdout
    help_text = run_cli("help", f"{propd.address}/io.propd")
    assert help_text.returncode == 0, help_text.stderr
    assert "method Subscribe" in help_text.stdout


def test_cli_streaming_subscribe(propd):
    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        con.Set({"cli.stream.a": 1})
    # --more prints every reply; the stream never ends by itself, so read the
    # first replies as they arrive and stop the CLI.
    proc = subprocess.Popen(
        [sys.executable, "-m", "varlink.cli", "call", "--more", f"{propd.address}/io.propd.Subscribe",
         json.dumps({"patterns": ["cli.stream.*"]})],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        text = ""
        decoder = json.JSONDecoder()
        events = []
        while len(events) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            text += line
            try:
                obj, _ = decoder.raw_decode(text.strip())
            except json.JSONDecodeError:
                continue
            events.append(obj["event"])
            text = ""
        assert events[0]["kind"] == "initial" and events[0]["value"] == 1
        assert events[1]["kind"] == "synced"
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_another_process_reads_and_backs_up_the_live_database(propd, tmp_path):
    """An admin's sqlite3 may read the database while propd runs, and copy
    it with SQLite's online backup; only propd writes it."""
    import sqlite3

    with varlink.Client(address=propd.address) as client, client.open("io.propd") as con:
        first = con.Set({"room.temp": 21.5})["revision"]
        reader = sqlite3.connect(f"file:{propd.database}?mode=ro", uri=True)
        try:
            assert reader.execute("SELECT value, revision FROM properties WHERE key = 'room.temp'").fetchall() == [
                ("21.5", first)
            ]
            # A write acknowledged after the reader opened is visible to its next read.
            second = con.Set({"room.temp": 22})["revision"]
            assert reader.execute("SELECT value FROM properties WHERE key = 'room.temp'").fetchall() == [("22",)]
            copy = sqlite3.connect(tmp_path / "copy.db")
            reader.backup(copy)
            assert copy.execute("SELECT id >> 18 FROM history ORDER BY id").fetchall() == [(first,), (second,)]
            copy.close()
        finally:
            reader.close()
        # propd carries on writing after the reader is gone.
        assert con.Set({"room.temp": 23})["revision"] == second + 1
