"""A web page the developer visits must not reach Hearth's data: requests naming a foreign host (DNS
rebinding) or sent by a page of a foreign origin are refused before anything runs, on every port and on
the Realtime Database's WebSocket, while the SDKs (no Origin), tools on this machine and apps served from
localhost keep working. Storage's `/internal/export` writes only into a new or empty folder."""

from __future__ import annotations

import json
import uuid

import pytest
import requests
import websocket

from reliability_support import EMULATORS, HEALTH_PATHS, hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(60)

FOREIGN_ORIGINS = ["https://evil.example", "http://attacker.example.com:8080", "null", "http://203.0.113.5"]
LOCAL_ORIGINS = ["http://localhost:3000", "http://127.0.0.1:5173", "http://[::1]:8000", "http://192.168.1.20:3000",
                 "http://app.localhost:3000", "http://devbox:3000"]
FOREIGN_HOSTS = ["evil.example", "rebind.attacker.example.com:9000"]
LOCAL_HOSTS = ["localhost", "127.0.0.1", "10.0.2.2", "[::1]", "host.docker.internal", "emulators",
               "demo-reliability-default-rtdb.firebaseio.com"]


def get(hearth, emulator: str, headers: dict[str, str]) -> requests.Response:
    return requests.get(hearth.url(emulator) + HEALTH_PATHS[emulator],
                        headers={"Authorization": "Bearer owner", **headers}, timeout=5)


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_page_is_refused(hearth, emulator, origin):
    response = get(hearth, emulator, {"Origin": origin})
    assert response.status_code == 403, response.text
    assert "access-control-allow-origin" not in response.headers
    assert response.json()["error"]["status"] == "PERMISSION_DENIED"


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_pages_preflight_gets_no_cors_grant(hearth, emulator, origin):
    response = requests.options(
        hearth.url(emulator) + HEALTH_PATHS[emulator],
        headers={"Origin": origin, "Access-Control-Request-Method": "DELETE",
                 "Access-Control-Request-Private-Network": "true"}, timeout=5)
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-private-network" not in response.headers


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("origin", LOCAL_ORIGINS)
def test_a_local_page_is_served_with_cors(hearth, emulator, origin):
    response = get(hearth, emulator, {"Origin": origin})
    assert response.status_code == 200, response.text
    assert response.headers.get("access-control-allow-origin") == origin
    preflight = requests.options(
        hearth.url(emulator) + HEALTH_PATHS[emulator],
        headers={"Origin": origin, "Access-Control-Request-Method": "PUT",
                 "Access-Control-Request-Private-Network": "true"}, timeout=5)
    assert preflight.status_code in (200, 204)
    assert preflight.headers.get("access-control-allow-origin") == origin
    assert preflight.headers.get("access-control-allow-private-network") == "true"


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_name_is_refused(hearth, emulator, host):
    response = get(hearth, emulator, {"Host": host})
    assert response.status_code == 403, response.text


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("host", LOCAL_HOSTS)
def test_local_host_names_are_served(hearth, emulator, host):
    response = get(hearth, emulator, {"Host": host})
    assert response.status_code == 200, response.text


def test_a_simple_cross_site_post_cannot_export(hearth, tmp_path):
    """The attack the probe found: a text/plain POST from a page, naming a folder the user owns."""
    victim = tmp_path / "precious"
    victim.mkdir()
    (victim / "thesis.txt").write_text("years of work")
    response = requests.post(hearth.url("storage") + "/internal/export", data=json.dumps({"path": str(victim)}),
                             headers={"Origin": "https://evil.example", "Content-Type": "text/plain"}, timeout=10)
    assert response.status_code == 403
    assert (victim / "thesis.txt").read_text() == "years of work"


def test_export_never_replaces_a_folder_with_contents(hearth, tmp_path):
    victim = tmp_path / "precious"
    victim.mkdir()
    (victim / "thesis.txt").write_text("years of work")
    response = requests.post(hearth.url("storage") + "/internal/export", json={"path": str(victim)}, timeout=10)
    assert response.status_code == 400, response.text
    assert sorted(p.name for p in victim.iterdir()) == ["thesis.txt"]
    assert not [p for p in tmp_path.iterdir() if p.name != "precious"], "a staging folder was left behind"
    fresh = tmp_path / "fresh" / "storage_export"
    response = requests.post(hearth.url("storage") + "/internal/export", json={"path": str(fresh)}, timeout=10)
    assert response.status_code == 200, response.text
    assert (fresh / "buckets.json").exists()


def open_database_socket(hearth, origin: str | None = None, host: str | None = None):
    target_host, port = hearth.addresses["database"]
    url = f"ws://{target_host}:{port}/.ws?v=5&ns=reliability"
    options = {"timeout": 5, "suppress_origin": origin is None}
    if origin:
        options["origin"] = origin
    if host:
        options["host"] = host
    return websocket.create_connection(url, **options)


# A declined upgrade is answered 400 by the WebSocket layer (Hummingbird), before any data is sent.
def test_a_foreign_page_cannot_open_a_database_websocket(hearth):
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        open_database_socket(hearth, "https://evil.example")
    assert refused.value.status_code in (400, 403)


def test_a_foreign_host_cannot_open_a_database_websocket(hearth):
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        open_database_socket(hearth, host="rebind.attacker.example.com")
    assert refused.value.status_code in (400, 403)


def test_a_local_page_opens_a_database_websocket(hearth):
    connection = open_database_socket(hearth, "http://localhost:3000")
    try:
        hello = json.loads(connection.recv())
        assert hello["t"] == "c"
    finally:
        connection.close()

