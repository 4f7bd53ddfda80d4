"""Helpers for the Cloud Firestore REST conformance tests: where the emulator listens, a tiny REST client
speaking proto3 JSON as the web SDK and curl do, Python ↔ `Value` conversion, unsigned ID tokens and
Firestore's error envelope (`{"error":{"code","message","status"}}`, no `errors` array).

Expected values are production Firestore's (googleapis `google/firestore/v1/*.proto`, the REST reference
at firebase.google.com/docs/firestore/reference/rest, and production answers quoted in the tests), the
official emulator's where production has nothing (emulator-only endpoints).
"""

from __future__ import annotations

import base64
import json
import math
import os
import time
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from support import RunningHearth

DEFAULT_DATABASE = "(default)"
PERMISSION_DENIED_MESSAGE = "Missing or insufficient permissions."


def to_milliseconds(timestamp: str) -> str:
    """An RFC 3339 UTC timestamp as a server timestamp of that instant is written: to the millisecond
    (`...07.394694Z` → `...07.394Z`, `...07.000100Z` → `...07Z`), as the official emulator writes them."""
    head, _, fraction = timestamp.rstrip("Z").partition(".")
    millis = (fraction + "000")[:3]
    return f"{head}.{millis}Z" if millis != "000" else f"{head}Z"


# --------------------------------------------------------------------------------------------
# Where the emulator is


@pytest.fixture(scope="session")
def firestore_host() -> str:
    """"host:port" of the Firestore emulator: FIRESTORE_EMULATOR_HOST from `hearth exec`, else a hearth
    started for this session with only Firestore (stopped by PID at the end)."""
    host = os.environ.get("FIRESTORE_EMULATOR_HOST")
    if host:
        yield host
        return
    hearth = RunningHearth(
        ["--only", "firestore", "--port", "firestore=0", "--port", "hub=0", "--project", "demo-hearth"]
    )
    try:
        hearth.wait_ready()
        addresses = hearth.addresses
        assert "Firestore" in addresses, hearth.output()
        yield addresses["Firestore"]
    finally:
        hearth.stop()


def new_project() -> str:
    """A project id no other test uses (demo- projects need no credentials)."""
    return f"demo-{uuid.uuid4().hex[:16]}"


@pytest.fixture
def db(firestore_host) -> "Firestore":
    """A client on a fresh project's (default) database, calling as admin (`Bearer owner`)."""
    return Firestore(firestore_host, new_project(), token="owner")


# --------------------------------------------------------------------------------------------
# Values: Python ↔ proto3 JSON `Value`


@dataclass(frozen=True)
class Ref:
    """A referenceValue: a full document name."""

    name: str


@dataclass(frozen=True)
class Geo:
    latitude: float
    longitude: float


@dataclass(frozen=True)
class Timestamp:
    """A timestampValue in RFC 3339 text, exactly as sent or received."""

    text: str


def encode(value: Any) -> dict:
    """A Python value as a proto3 JSON `Value`."""
    if value is None:
        return {"nullValue": None}
    if isinstance(value, bool):
        return {"booleanValue": value}
    if isinstance(value, int):
        return {"integerValue": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"doubleValue": "NaN"}
        if math.isinf(value):
            return {"doubleValue": "Infinity" if value > 0 else "-Infinity"}
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, (bytes, bytearray)):
        return {"bytesValue": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, Ref):
        return {"referenceValue": value.name}
    if isinstance(value, Geo):
        return {"geoPointValue": {"latitude": value.latitude, "longitude": value.longitude}}
    if isinstance(value, Timestamp):
        return {"timestampValue": value.text}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [encode(v) for v in value]}} if value else {"arrayValue": {}}
    if isinstance(value, dict):
        return {"mapValue": {"fields": fields(value)}} if value else {"mapValue": {}}
    raise TypeError(f"no Firestore value for {value!r}")


def fields(data: dict) -> dict:
    """A Python dict as a document's `fields` map."""
    return {key: encode(v) for key, v in data.items()}


def decode(value: dict) -> Any:
    """A proto3 JSON `Value` as a Python value (int64 strings → int, special doubles → float)."""
    assert isinstance(value, dict) and len(value) == 1, f"a Value has exactly one kind: {value!r}"
    (kind, raw), = value.items()
    if kind == "nullValue":
        return None
    if kind == "booleanValue":
        return raw
    if kind == "integerValue":
        assert isinstance(raw, str), f"int64 is a JSON string in proto3 JSON: {value!r}"
        return int(raw)
    if kind == "doubleValue":
        return float(raw)
    if kind == "stringValue":
        return raw
    if kind == "bytesValue":
        return base64.b64decode(raw)
    if kind == "referenceValue":
        return Ref(raw)
    if kind == "geoPointValue":
        return Geo(float(raw.get("latitude", 0.0)), float(raw.get("longitude", 0.0)))
    if kind == "timestampValue":
        return Timestamp(raw)
    if kind == "arrayValue":
        return [decode(v) for v in raw.get("values", [])]
    if kind == "mapValue":
        return data_of(raw)
    raise AssertionError(f"unknown Value kind {kind!r}")


def data_of(document: dict) -> dict:
    """A Document's (or map's) fields as Python values."""
    return {key: decode(v) for key, v in document.get("fields", {}).items()}


def field_path_order(path: str, direction: str = "ASCENDING") -> dict:
    return {"field": {"fieldPath": path}, "direction": direction}


def field_filter(path: str, op: str, value: Any) -> dict:
    return {"fieldFilter": {"field": {"fieldPath": path}, "op": op, "value": encode(value)}}


def unary_filter(path: str, op: str) -> dict:
    return {"unaryFilter": {"field": {"fieldPath": path}, "op": op}}


def composite(op: str, *filters: dict) -> dict:
    return {"compositeFilter": {"op": op, "filters": list(filters)}}


# --------------------------------------------------------------------------------------------
# Tokens


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def id_token(uid: str, project: str, **claims) -> str:
    """An unsigned ID token (alg none) as the Auth emulator issues and the Firestore emulator decodes."""
    now = int(time.time())
    payload = {
        "iss": f"https://securetoken.google.com/{project}",
        "aud": project,
        "auth_time": now,
        "iat": now,
        "exp": now + 3600,
        "sub": uid,
        "user_id": uid,
        "firebase": {"sign_in_provider": "custom", "identities": {}},
        **claims,
    }
    header = {"alg": "none", "typ": "JWT"}
    return f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(payload).encode())}."


# --------------------------------------------------------------------------------------------
# Errors


def firestore_error(response: requests.Response, code: int, status: str, message: str | None = None) -> dict:
    """Asserts Firestore's REST error envelope `{"error":{"code","message","status"}}` and returns `error`."""
    assert response.status_code == code, (
        f"expected {code} {status} {message!r}, got {response.status_code}: {response.text[:2000]}"
    )
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert error.get("code") == code, body
    assert error.get("status") == status, body
    assert isinstance(error.get("message"), str) and error["message"], body
    if message == PERMISSION_DENIED_MESSAGE:
        # A rules denial goes on with why, on the next line: `false for 'get' @ L5`.
        assert error["message"] == message or error["message"].startswith(message + "\n"), body
    elif message is not None:
        assert error["message"] == message, body
    return error


def permission_denied(response: requests.Response) -> dict:
    return firestore_error(response, 403, "PERMISSION_DENIED", PERMISSION_DENIED_MESSAGE)


def ok(response: requests.Response) -> Any:
    assert response.status_code == 200, f"{response.request.method} {response.request.url}: {response.status_code} {response.text[:2000]}"
    return response.json()


# --------------------------------------------------------------------------------------------
# The REST client


class Firestore:
    """Calls the Firestore REST API v1 of one project and database, with an optional bearer token
    (`owner` = admin, an unsigned JWT = a user, None = unauthenticated)."""

    def __init__(self, host: str, project: str, database: str = DEFAULT_DATABASE, token: str | None = None):
        self.host = host
        self.project = project
        self.database = database
        self.token = token
        self.http = requests.Session()

    # Names ----------------------------------------------------------------------------------

    @property
    def database_name(self) -> str:
        return f"projects/{self.project}/databases/{self.database}"

    @property
    def root(self) -> str:
        """projects/{p}/databases/{d}/documents"""
        return f"{self.database_name}/documents"

    def name(self, path: str) -> str:
        """The full name of a document (or collection) path relative to the root."""
        return f"{self.root}/{path}" if path else self.root

    @property
    def base(self) -> str:
        return f"http://{self.host}"

    def with_token(self, token: str | None) -> "Firestore":
        return Firestore(self.host, self.project, self.database, token)

    def as_user(self, uid: str, **claims) -> "Firestore":
        return self.with_token(id_token(uid, self.project, **claims))

    def other_database(self, database: str) -> "Firestore":
        return Firestore(self.host, self.project, database, self.token)

    # Raw -------------------------------------------------------------------------------------

    def headers(self, extra: dict | None = None) -> dict:
        headers = {}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, *, body: Any = None, params=None, headers=None,
                data: bytes | str | None = None, timeout: float = 30) -> requests.Response:
        """`path` starts with "/" and is appended to http://host (e.g. "/v1/projects/…")."""
        return self.http.request(
            method,
            self.base + path,
            json=body if data is None else None,
            data=data,
            params=params,
            headers=self.headers(headers),
            timeout=timeout,
        )

    def v1(self, method: str, name: str, **kwargs) -> requests.Response:
        """A call on /v1/{name}, e.g. name = db.name("c/d") or db.root + ":runQuery"."""
        return self.request(method, f"/v1/{name}", **kwargs)

    # Documents -------------------------------------------------------------------------------

    def get(self, path: str, **params) -> requests.Response:
        return self.v1("GET", self.name(path), params=params or None)

    def create(self, collection: str, data: dict | None = None, document_id: str | None = None,
               **params) -> requests.Response:
        if document_id is not None:
            params["documentId"] = document_id
        return self.v1("POST", self.name(collection), body={"fields": fields(data or {})}, params=params or None)

    def patch(self, path: str, data: dict, **params) -> requests.Response:
        return self.v1("PATCH", self.name(path), body={"fields": fields(data)}, params=params or None)

    def delete(self, path: str, **params) -> requests.Response:
        return self.v1("DELETE", self.name(path), params=params or None)

    def list(self, collection: str, **params) -> requests.Response:
        return self.v1("GET", self.name(collection), params=params or None)

    def list_collection_ids(self, parent: str = "", body: dict | None = None) -> requests.Response:
        return self.v1("POST", self.name(parent) + ":listCollectionIds", body=body or {})

    def batch_get(self, body: dict) -> requests.Response:
        return self.v1("POST", self.root + ":batchGet", body=body)

    def commit(self, writes: list[dict], transaction: str | None = None, **kwargs) -> requests.Response:
        body: dict = {"writes": writes}
        if transaction is not None:
            body["transaction"] = transaction
        return self.v1("POST", self.root + ":commit", body=body, **kwargs)

    def batch_write(self, writes: list[dict]) -> requests.Response:
        return self.v1("POST", self.root + ":batchWrite", body={"writes": writes})

    def begin(self, options: dict | None = None) -> str:
        body = {"options": options} if options is not None else {}
        response = ok(self.v1("POST", self.root + ":beginTransaction", body=body))
        assert isinstance(response.get("transaction"), str) and response["transaction"], response
        return response["transaction"]

    def rollback(self, transaction: str) -> requests.Response:
        return self.v1("POST", self.root + ":rollback", body={"transaction": transaction})

    def run_query(self, structured_query: dict, parent: str = "", **extra) -> requests.Response:
        return self.v1("POST", self.name(parent) + ":runQuery", body={"structuredQuery": structured_query, **extra})

    def query_docs(self, structured_query: dict, parent: str = "", **extra) -> list[dict]:
        """The documents a query returns, in order (the response is one JSON array)."""
        body = ok(self.run_query(structured_query, parent, **extra))
        assert isinstance(body, list) and body, f"runQuery over REST answers a non-empty JSON array: {body!r}"
        # The last element says the query is done, and only it (as the official emulator answers).
        assert body[-1].get("done") is True and not any("done" in item for item in body[:-1]), body
        return [item["document"] for item in body if "document" in item]

    def query_ids(self, structured_query: dict, parent: str = "", **extra) -> list[str]:
        return [doc["name"].rsplit("/", 1)[1] for doc in self.query_docs(structured_query, parent, **extra)]

    def aggregate(self, structured_query: dict, aggregations: list[dict], parent: str = "") -> requests.Response:
        body = {"structuredAggregationQuery": {"structuredQuery": structured_query, "aggregations": aggregations}}
        return self.v1("POST", self.name(parent) + ":runAggregationQuery", body=body)

    # Shortcuts for tests ------------------------------------------------------------------------

    def set(self, path: str, data: dict) -> dict:
        """Writes a whole document through commit (creates or replaces) and returns the commit response."""
        return ok(self.commit([update(self.name(path), data)]))

    def data(self, path: str) -> dict | None:
        """A document's data, or None when it does not exist."""
        response = self.get(path)
        if response.status_code == 404:
            return None
        return data_of(ok(response))

    # Emulator-only ------------------------------------------------------------------------------

    def clear(self) -> requests.Response:
        return self.request("DELETE", f"/emulator/v1/{self.root}")

    def load_rules(self, text: str, **extra) -> requests.Response:
        body = {"rules": {"files": [{"name": "firestore.rules", "content": text}]}, **extra}
        return self.request("PUT", f"/emulator/v1/projects/{self.project}:securityRules", body=body)


def update(name: str, data: dict | None = None, *, mask: list[str] | None = None, exists: bool | None = None,
           update_time: str | None = None, transforms: list[dict] | None = None) -> dict:
    """A Write that updates (sets, or patches with `mask`) the document `name`."""
    write: dict = {"update": {"name": name, "fields": fields(data or {})}}
    if mask is not None:
        write["updateMask"] = {"fieldPaths": mask}
    if transforms is not None:
        write["updateTransforms"] = transforms
    precondition = precondition_of(exists, update_time)
    if precondition:
        write["currentDocument"] = precondition
    return write


def delete(name: str, *, exists: bool | None = None, update_time: str | None = None) -> dict:
    write: dict = {"delete": name}
    precondition = precondition_of(exists, update_time)
    if precondition:
        write["currentDocument"] = precondition
    return write


def precondition_of(exists: bool | None, update_time: str | None) -> dict:
    if exists is not None:
        return {"exists": exists}
    if update_time is not None:
        return {"updateTime": update_time}
    return {}


def query(collection: str, *, where: dict | None = None, order_by: list[dict] | None = None,
          all_descendants: bool = False, **extra) -> dict:
    """A StructuredQuery over `collection`."""
    selector: dict = {"collectionId": collection}
    if all_descendants:
        selector["allDescendants"] = True
    q: dict = {"from": [selector]}
    if where is not None:
        q["where"] = where
    if order_by is not None:
        q["orderBy"] = order_by
    q.update(extra)
    return q
