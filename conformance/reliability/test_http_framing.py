"""Malformed HTTP/1.1 on every port: each case gets a prompt 4xx (never a 5xx, a hang, or a connection
dropped without an answer), and every emulator is healthy afterwards (checked when the module's hearth
stops).

The corpus is what clumsy clients, scanners and hostile pages send: a bad version or method, oversized
headers and request lines, framing conflicts and broken chunking, a body cut short, TLS and HTTP/2 upgrade
attempts, CONNECT. Cases are sent to each of the five ports with a path whose handler reads the body."""

from __future__ import annotations

import pytest

from reliability_support import BODY_PATHS, EMULATORS, hearth, raw_exchange  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(60)

TLS_CLIENT_HELLO = bytes.fromhex(
    "16030100a5010000a10303" + "00" * 32 + "000020c02bc02fc02cc030cca9cca8c013c014009c009d002f0035000a"
    "0100005800000014001200000f7777772e6578616d706c652e636f6d000a00080006001d00170018000b00020100000d0012"
    "001004030804040105030805050108060601ff01000100")


def request(method: str, path: str, host: str, headers: str = "", body: bytes = b"") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode() + body


def corpus(path: str, host: str) -> dict[str, tuple[bytes, bool]]:
    """Case name → (bytes to send, whether to half-close after them)."""
    return {
        "bad version": (f"GET {path} HTTP/9.9\r\nHost: {host}\r\n\r\n".encode(), False),
        "unknown method": (request("FROB", path, host), False),
        "lowercase method": (request("get", path, host), False),
        "no colon in a header": (request("GET", path, host, "NoColonHere\r\n"), False),
        "space before a colon": (request("GET", path, host, "X-Bad : 1\r\n"), False),
        "100 KB header": (request("GET", path, host, "X-Big: " + "a" * 100_000 + "\r\n"), False),
        "10,000 headers": (request("GET", path, host, "".join(f"X-{i}: {i}\r\n" for i in range(10_000))), False),
        "100 KB request line": (request("GET", path + "?q=" + "a" * 100_000, host), False),
        "NUL in the target": (f"GET {path}\x00 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(), False),
        "content-length and chunked": (
            request("POST", path, host, "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"), False),
        "two content-lengths": (request("POST", path, host, "Content-Length: 2\r\nContent-Length: 3\r\n", b"{}"), False),
        "negative content-length": (request("POST", path, host, "Content-Length: -1\r\n", b"{}"), False),
        "non-numeric content-length": (request("POST", path, host, "Content-Length: abc\r\n", b"{}"), False),
        "bad chunk size": (request("POST", path, host, "Transfer-Encoding: chunked\r\n", b"zz\r\n{}\r\n0\r\n\r\n"), False),
        "huge trailer": (request(
            "POST", path, host, "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n",
            b"2\r\n{}\r\n0\r\nX-Trailer: " + b"t" * 100_000 + b"\r\n\r\n"), False),
        "body cut short": (request(
            "POST", path, host, "Content-Length: 100\r\nContent-Type: application/json\r\n", b'{"a":'), True),
        "chunked body cut short": (request(
            "POST", path, host, "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n", b"10\r\n{\"a\""), True),
        "TLS client hello": (TLS_CLIENT_HELLO, False),
        "h2c upgrade": (request(
            "GET", path, host, "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
            "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n"), False),
        "unknown upgrade": (request("GET", path, host, "Connection: Upgrade\r\nUpgrade: foo/1\r\n"), False),
        "CONNECT": (f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(), False),
        "CONNECT with a body": (f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\nhello".encode(), False),
        "absolute-form target": (request("GET", f"http://{host}{path}", host), False),
        "asterisk target": (request("OPTIONS", "*", host), False),
        "garbage": (b"\x00\x01\x02\xff\xfe\r\n\r\n", False),
        "HTTP/0.9": (f"GET {path}\r\n\r\n".encode(), False),
    }


CASES = sorted(corpus("/", "h"))
# Requests the server may answer successfully: they are well-formed HTTP.
MAY_SUCCEED = {"absolute-form target", "asterisk target", "h2c upgrade", "unknown upgrade", "lowercase method"}


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
@pytest.mark.parametrize("case", CASES)
def test_malformed_request_gets_a_prompt_client_error(hearth, emulator, case):
    host, port = hearth.addresses[emulator]
    payload, half_close = corpus(BODY_PATHS[emulator], f"{host}:{port}")[case]
    answer = raw_exchange(host, port, payload, half_close=half_close)
    status = answer.status
    assert status is not None, f"{case} on {emulator}: no HTTP answer in {answer.elapsed:.1f} s " \
                               f"(closed={answer.closed}): {answer.data[:200]!r}"
    assert status < 500, f"{case} on {emulator}: {answer.data[:400]!r}"
    if case not in MAY_SUCCEED:
        assert 400 <= status < 500, f"{case} on {emulator}: {answer.data[:400]!r}"
