"""The Realtime Database's long-polling transport (`/.lp`) on the wire, as firebase-database.js speaks it (the
browser suite drives the SDK itself: conformance/browser/test_browser_database_long_polling.py): the start
script, client frames as numbered web-safe base64 segments, polls answered with numbered packets, the
disconnect beacon running onDisconnect writes, and bad input refused without harm.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import uuid

import requests


def lp_url(suite) -> str:
    return f"http://{suite.database_host}/.lp"


def encode(message: dict) -> str:
    """A frame as the SDK sends it: JSON, UTF-8, web-safe base64 with '.' padding."""
    return base64.b64encode(json.dumps(message).encode()).decode().replace("+", "-").replace("/", "_").replace("=", ".")


def packets(script: str) -> list[tuple[int, list]]:
    """The pRTLPCB(n, [frames]) calls of a script."""
    return [(int(number), json.loads(frames)) for number, frames in re.findall(r"pRTLPCB\((\d+), (\[.*?\])\);", script)]


class Session:
    """One long-polling client, by hand."""

    def __init__(self, suite, namespace: str):
        self.url = lp_url(suite)
        self.namespace = namespace
        self.http = requests.Session()
        self.serial = 1000
        self.segment = 0
        started = self.http.get(self.url, params={"start": "t", "ser": "1", "cb": "7", "v": "5", "ns": namespace}, timeout=10)
        assert started.status_code == 200, started.text
        assert started.headers["Content-Type"].startswith("application/javascript")
        self.start_script = started.text
        self.id, self.password = re.search(r"pLPCommand\('start', '(\w+)', '(\w+)'\);", started.text).groups()
        self.received = dict(packets(started.text))

    def request(self, messages: list[dict] = (), segment_size: int = 1840, timeout: float = 30) -> str:
        params = {"id": self.id, "pw": self.password, "ser": str(self.serial), "ns": self.namespace}
        self.serial += 1
        index = 0
        for message in messages:
            data = encode(message)
            chunks = [data[i:i + segment_size] for i in range(0, len(data), segment_size)]
            for chunk in chunks:
                params[f"seg{index}"] = str(self.segment)
                params[f"ts{index}"] = str(len(chunks))
                params[f"d{index}"] = chunk
                self.segment += 1
                index += 1
        response = self.http.get(self.url, params=params, timeout=timeout)
        assert response.status_code == 200, response.text
        for number, frames in packets(response.text):
            self.received[number] = frames
        return response.text

    def frames(self) -> list[dict]:
        return [frame for number in sorted(self.received) for frame in self.received[number]]

    def until(self, predicate, what: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for frame in self.frames():
                if predicate(frame):
                    return frame
            self.request(timeout=25)
        raise AssertionError(f"no {what} in {self.frames()}")


def test_start_script_registers_callbacks_and_delivers_the_hello(suite):
    session = Session(suite, "lp-" + uuid.uuid4().hex[:8])
    assert 'parent.window["pLPCommand7"]' in session.start_script and 'parent.window["pRTLPCB7"]' in session.start_script
    hello = session.received[0][0]
    assert hello["t"] == "c" and hello["d"]["t"] == "h"
    assert hello["d"]["d"]["v"] == "5" and hello["d"]["d"]["h"] == suite.database_host and hello["d"]["d"]["s"] == session.id


def test_segmented_requests_listens_writes_and_the_disconnect_beacon(suite):
    namespace = "lp-" + uuid.uuid4().hex[:8]
    session = Session(suite, namespace)
    # A write bigger than one segment, then an onDisconnect and a listen.
    big = "é" * 3000
    session.request([{"t": "d", "d": {"r": 1, "a": "p", "b": {"p": "/big", "d": big}}}])
    session.request([{"t": "d", "d": {"r": 2, "a": "o", "b": {"p": "/presence", "d": "offline"}}},
                     {"t": "d", "d": {"r": 3, "a": "q", "b": {"p": "/feed", "h": ""}}}])
    for request in (1, 2, 3):
        answer = session.until(lambda frame: frame.get("d", {}).get("r") == request, f"the answer to request {request}")
        assert answer["d"]["b"]["s"] == "ok", answer
    # A write by another client reaches the held poll.
    holder: list[str] = []
    poll = threading.Thread(target=lambda: holder.append(session.request(timeout=25)))
    poll.start()
    time.sleep(0.3)
    written = requests.put(f"http://{suite.database_host}/feed.json?ns={namespace}", data=json.dumps({"n": 1}),
                           headers={"Authorization": "Bearer owner"}, timeout=10)
    assert written.status_code == 200
    poll.join(10)
    assert not poll.is_alive(), "a held poll is answered as soon as a frame waits"
    assert any(frame.get("d", {}).get("b", {}).get("d") == {"n": 1} for _, frames in packets(holder[0]) for frame in frames)
    read = requests.get(f"http://{suite.database_host}/big.json?ns={namespace}", headers={"Authorization": "Bearer owner"}, timeout=10)
    assert read.json() == big
    # The page's disconnect frame, then its beacon (a POST): the onDisconnect write runs.
    frame = session.http.get(session.url, params={"dframe": "t", "id": session.id, "pw": session.password, "ns": namespace}, timeout=10)
    assert frame.status_code == 200 and "sendBeacon" in frame.text
    beacon = session.http.post(session.url, params={"disconn": "t", "id": session.id, "pw": session.password, "ns": namespace}, timeout=10)
    assert beacon.status_code == 200
    presence = requests.get(f"http://{suite.database_host}/presence.json?ns={namespace}", headers={"Authorization": "Bearer owner"}, timeout=10)
    assert presence.json() == "offline"
    gone = session.http.get(session.url, params={"id": session.id, "pw": session.password, "ser": "1"}, timeout=10)
    assert gone.status_code == 404, "an ended session's polls fail, so the SDK connects again"


def test_bad_input_is_refused_without_harm(suite):
    url = lp_url(suite)
    assert requests.get(url, params={"start": "t", "cb": "alert(1)", "v": "5"}, timeout=10).status_code == 400
    assert requests.get(url, params={"id": "nope", "pw": "nope", "ser": "1"}, timeout=10).status_code == 404
    session = Session(suite, "lp-" + uuid.uuid4().hex[:8])
    assert requests.get(url, params={"id": session.id, "pw": "wrong", "ser": "1"}, timeout=10).status_code == 404
    # Not base64: the connection ends (as a WebSocket's does on a message that is not the protocol).
    answer = session.http.get(url, params={"id": session.id, "pw": session.password, "ser": "5", "seg0": "0", "ts0": "1",
                                           "d0": "!!!"}, timeout=10)
    assert answer.status_code == 200 and "pLPCommand('close')" in answer.text
    assert requests.get(f"http://{suite.database_host}/.json", headers={"Authorization": "Bearer owner"}, timeout=10).status_code == 200


def test_a_held_poll_does_not_hold_up_the_suite_stopping(tmp_path):
    """SIGTERM with a poll held (the server holds one up to 20 s): the session ends, its poll is answered,
    and hearth exits at once instead of waiting for the hold."""
    import signal
    from dataclasses import dataclass

    from support import RunningHearth

    process = RunningHearth(["--only", "database", "--port", "database=0", "--port", "hub=0", "--port", "ui=0"], cwd=tmp_path)
    process.wait_ready()

    @dataclass
    class Where:
        database_host: str

    try:
        session = Session(Where(process.addresses["Database"]), "demo-held-poll")
        answered = []
        poller = threading.Thread(target=lambda: answered.append(session.request(timeout=30)), daemon=True)
        poller.start()
        time.sleep(2)  # the poll is held now (the server holds it up to 20 s)
        began = time.monotonic()
        assert process.stop(signal.SIGTERM, timeout=15) == 0
        assert time.monotonic() - began < 10, process.output()
        poller.join(10)
        assert answered, "the held poll was answered"
    finally:
        process.stop()
