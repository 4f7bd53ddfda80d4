"""Bad values inside well-formed requests: each API refuses them with its own error shape, and nothing is
half-written (no phantom children, no database named `..`)."""

from __future__ import annotations

import json

import pytest
import requests
import websocket

from reliability_support import hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(60)
OWNER = {"Authorization": "Bearer owner"}


def database(hearth, path: str, **params) -> str:
    query = "&".join(f"{key}={value}" for key, value in {"ns": "inputs", **params}.items())
    return f"{hearth.url('database')}/{path}.json?{query}"


@pytest.mark.parametrize("number", ["1e400", "-1e400", "9" * 400, "1" + "0" * 309])
def test_database_refuses_numbers_beyond_double_range(hearth, number):
    body = '{"big": ' + number + ', "ok": 1}'
    response = requests.put(database(hearth, "numbers"), data=body, headers=OWNER, timeout=5)
    assert response.status_code == 400, response.text
    assert isinstance(response.json()["error"], str)
    shallow = requests.get(database(hearth, "numbers", shallow="true"), headers=OWNER, timeout=5)
    assert shallow.json() is None, shallow.text


def test_database_socket_refuses_numbers_beyond_double_range(hearth):
    host, port = hearth.addresses["database"]
    connection = websocket.create_connection(f"ws://{host}:{port}/.ws?v=5&ns=inputs", timeout=5)
    try:
        connection.recv()  # hello
        connection.send('{"t":"d","d":{"r":1,"a":"p","b":{"p":"/wire-numbers","d":{"big":1e400}}}}')
        try:
            answer = json.loads(connection.recv())
            # A protocol error ("t": "c", then the connection ends) or a failed write, never "ok".
            assert answer["t"] == "c" or answer["d"]["b"]["s"] != "ok", answer
        except (websocket.WebSocketConnectionClosedException, ConnectionError):
            pass  # refusing the connection is as good as refusing the write
    finally:
        connection.close()
    shallow = requests.get(database(hearth, "wire-numbers", shallow="true"), headers=OWNER, timeout=5)
    assert shallow.json() is None, shallow.text


def test_database_rules_are_read_by_admins_only(hearth):
    url = f"{hearth.url('database')}/.settings/rules.json?ns=inputs"
    assert requests.get(url, timeout=5).status_code == 401
    assert requests.get(url, headers={"Authorization": "Bearer not-a-jwt"}, timeout=5).status_code in (401, 403)
    response = requests.get(url, headers=OWNER, timeout=5)
    assert response.status_code == 200
    assert "rules" in response.text


@pytest.mark.parametrize("callback", ["alert(1)//", "<script>", "a b", "1abc", "x;y", "a..b", "x" * 300, ".a"])
def test_database_jsonp_callback_must_be_a_name(hearth, callback):
    response = requests.get(database(hearth, "jsonp"), params={"callback": callback}, headers=OWNER, timeout=5)
    assert response.status_code == 400, response.text
    assert callback not in response.text or len(callback) > 100


@pytest.mark.parametrize("callback", ["cb", "jQuery_123", "window.handlers.$done"])
def test_database_jsonp_with_a_name(hearth, callback):
    response = requests.get(database(hearth, "jsonp"), params={"callback": callback}, headers=OWNER, timeout=5)
    assert response.status_code == 200
    assert response.text == f"{callback}(null);"
    assert response.headers["content-type"].startswith("application/javascript")
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("namespace", ["..", "%00", "a%2Fb", "a.b", "%20", "x" * 101])
def test_database_namespace_must_be_a_name(hearth, namespace):
    url = f"{hearth.url('database')}/.json?ns={namespace}"
    response = requests.get(url, headers=OWNER, timeout=5)
    assert response.status_code == 400, response.text
    listed = requests.get(f"{hearth.url('database')}/.inspect/databases.json", headers=OWNER, timeout=5).json()
    assert all(entry["name"] not in ("..", "\x00", "a/b", "a.b", " ") for entry in listed)


def test_database_socket_with_a_bad_namespace_is_refused(hearth):
    host, port = hearth.addresses["database"]
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(f"ws://{host}:{port}/.ws?v=5&ns=..", timeout=5)
    assert refused.value.status_code == 400


@pytest.mark.parametrize("email", ["a\x00b@example.com", "a b@example.com", "x" * 2_000_000 + "@example.com",
                                   "x" * 250 + "@example.com"])
def test_auth_refuses_impossible_emails(hearth, email):
    response = requests.post(
        f"{hearth.url('auth')}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake",
        json={"email": email, "password": "secret12"}, timeout=30)
    assert response.status_code == 400, response.text[:300]
    assert response.json()["error"]["message"] in ("INVALID_EMAIL",) or response.status_code == 413
