"""Helpers for the Cloud Firestore gRPC conformance tests (test_firestore_grpc.py, test_firestore_listen.py).

Two ways to talk to the emulator over gRPC, both the official Python stack (google-cloud-firestore,
grpcio), never our own code:

* `client` — a `google.cloud.firestore.Client` in emulator mode, exactly as users get it: the environment
  variable FIRESTORE_EMULATOR_HOST makes the client open an insecure channel and send `Bearer owner`
  (admin, rules bypassed). Each test gets a fresh project, so tests never see each other's data.
* `RawApi` — the generated GAPIC stub (`FirestoreClient` over `FirestoreGrpcTransport`) on a plain
  `grpc.insecure_channel`, for what the high-level client cannot do: send a user's unsigned ID token (rules),
  drive the `Listen` stream by hand, and look at the exact `Value` kinds of aggregation results.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Iterable

import grpc
import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports import FirestoreGrpcTransport
from google.cloud.firestore_v1.types import firestore as firestore_types

from firestore_support import (  # noqa: F401 (re-exported fixture)
    DEFAULT_DATABASE,
    PERMISSION_DENIED_MESSAGE,
    Firestore,
    firestore_host,
    id_token,
    new_project,
)

# Every RPC the tests make carries a deadline, so a server that never answers fails the test instead of
# hanging it; pytest-timeout (30 s per test, set in the test modules) is the last resort.
RPC_TIMEOUT = 10.0


def close_client(client: firestore.Client) -> None:
    """Closes the client's gRPC channel (google-cloud-firestore has no Client.close())."""
    transport = getattr(client, "_transport", None)
    if transport is not None:
        try:
            transport.close()
        except Exception:  # noqa: BLE001 - closing is best effort at teardown
            pass


@pytest.fixture
def clients(firestore_host, monkeypatch):
    """A factory of emulator-mode clients: clients(project) → Client (calling as `Bearer owner`).
    Every client made is closed at the end of the test."""
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", firestore_host)
    made: list[firestore.Client] = []

    def make(project: str | None = None) -> firestore.Client:
        made_client = firestore.Client(project=project or new_project())
        made.append(made_client)
        return made_client

    yield make
    for made_client in made:
        close_client(made_client)


@pytest.fixture
def client(clients) -> firestore.Client:
    """An emulator-mode client on a fresh project's (default) database."""
    return clients()


def rest_admin(host: str, project: str) -> Firestore:
    """The REST helper of firestore_support on the same project (rules loading, cross-checks)."""
    return Firestore(host, project, token="owner")


def load_rules(host: str, project: str, text: str) -> None:
    response = rest_admin(host, project).load_rules(text)
    assert response.status_code == 200, f"loading rules: {response.status_code} {response.text[:2000]}"
    issues = response.json().get("issues", [])
    assert not [i for i in issues if i.get("severity") == "ERROR"], issues


# --------------------------------------------------------------------------------------------
# Raw GAPIC stubs on an insecure channel


class RawApi:
    """The generated Firestore stub on its own channel, sending `authorization: Bearer <token>` (or none)
    and `google-cloud-resource-prefix` as every SDK does."""

    def __init__(self, host: str, project: str, token: str | None = None, database: str = DEFAULT_DATABASE):
        self.project = project
        self.database = f"projects/{project}/databases/{database}"
        self.root = f"{self.database}/documents"
        self.channel = grpc.insecure_channel(host)
        self.transport = FirestoreGrpcTransport(channel=self.channel)
        self.api = FirestoreClient(transport=self.transport)
        self.metadata: list[tuple[str, str]] = [("google-cloud-resource-prefix", self.database)]
        if token is not None:
            self.metadata.append(("authorization", f"Bearer {token}"))

    def name(self, path: str) -> str:
        return f"{self.root}/{path}"

    def call(self, method: str, request: Any, **kwargs):
        """A unary (or server-streaming) call without client-side retries and with a deadline."""
        return getattr(self.api, method)(
            request=request, metadata=self.metadata, retry=None, timeout=RPC_TIMEOUT, **kwargs
        )

    def close(self) -> None:
        self.channel.close()


@pytest.fixture
def raw_apis(firestore_host):
    """A factory of RawApi: raw_apis(project, token) → RawApi; all channels closed at the end."""
    made: list[RawApi] = []

    def make(project: str, token: str | None = None) -> RawApi:
        api = RawApi(firestore_host, project, token)
        made.append(api)
        return api

    yield make
    for api in made:
        api.close()


class ListenSession:
    """One raw `Listen` stream: requests are queued by the test, responses are read by a thread into a
    queue so every wait has a timeout."""

    _END = object()

    def __init__(self, api: RawApi):
        self.api = api
        self._requests: queue.Queue = queue.Queue()
        self.responses: queue.Queue = queue.Queue()
        self.error: BaseException | None = None
        # The raw multicallable (not the GAPIC wrapper, which blocks until a first response arrives).
        self._call = api.transport.listen(self._request_iterator(), metadata=api.metadata)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _request_iterator(self):
        while True:
            item = self._requests.get()
            if item is self._END:
                return
            yield item

    def _read(self) -> None:
        try:
            for response in self._call:
                self.responses.put(response)
        except BaseException as error:  # noqa: BLE001 - reported to the test through self.error
            self.error = error
        finally:
            self.responses.put(self._END)

    def send(self, **request) -> None:
        self._requests.put(firestore_types.ListenRequest(database=self.api.database, **request))

    def add_query(self, target_id: int, collection_id: str, parent: str | None = None, **target) -> None:
        from google.cloud.firestore_v1.types import query as query_types

        structured = query_types.StructuredQuery(
            from_=[query_types.StructuredQuery.CollectionSelector(collection_id=collection_id)]
        )
        self.send(
            add_target=firestore_types.Target(
                target_id=target_id,
                query=firestore_types.Target.QueryTarget(parent=parent or self.api.root, structured_query=structured),
                **target,
            )
        )

    def add_documents(self, target_id: int, paths: Iterable[str], **target) -> None:
        self.send(
            add_target=firestore_types.Target(
                target_id=target_id,
                documents=firestore_types.Target.DocumentsTarget(documents=[self.api.name(p) for p in paths]),
                **target,
            )
        )

    def remove(self, target_id: int) -> None:
        self.send(remove_target=target_id)

    def next(self, timeout: float = 10.0) -> firestore_types.ListenResponse:
        try:
            item = self.responses.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no ListenResponse within {timeout} s") from None
        if item is self._END:
            raise AssertionError(f"the Listen stream ended: {self.error!r}")
        return item

    def until(self, predicate, timeout: float = 10.0) -> list[firestore_types.ListenResponse]:
        """Every response up to and including the first one that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching ListenResponse within {timeout} s; saw {seen!r}")
            response = self.next(remaining)
            seen.append(response)
            if predicate(response):
                return seen

    def close(self) -> None:
        self._requests.put(self._END)
        try:
            self._call.cancel()
        except Exception:  # noqa: BLE001
            pass
        self._reader.join(5)


def kind(response: firestore_types.ListenResponse) -> str:
    """"target_change" / "document_change" / "document_delete" / "document_remove" / "filter"."""
    return firestore_types.ListenResponse.pb(response).WhichOneof("response_type")


TargetChangeType = firestore_types.TargetChange.TargetChangeType


def is_global_snapshot(response) -> bool:
    """A NO_CHANGE target change with no target ids and a read time: the consistent-snapshot marker."""
    if kind(response) != "target_change":
        return False
    change = response.target_change
    pb = firestore_types.TargetChange.pb(change)
    return (
        change.target_change_type == TargetChangeType.NO_CHANGE
        and len(change.target_ids) == 0
        and pb.HasField("read_time")
    )


def is_target_change(response, change_type, target_id: int | None = None) -> bool:
    if kind(response) != "target_change":
        return False
    change = response.target_change
    if change.target_change_type != change_type:
        return False
    return target_id is None or target_id in list(change.target_ids)


def significant(responses) -> list[tuple]:
    """A compact view of a Listen exchange without per-target NO_CHANGE heartbeats (production sends
    resume-token updates for single targets at will): ("ADD", ids), ("doc", name, ids, removed_ids),
    ("CURRENT", ids), ("snapshot",), ("delete", name), ("remove", name), ("REMOVE", ids, code) …"""
    view = []
    for response in responses:
        which = kind(response)
        if which == "target_change":
            change = response.target_change
            ids = tuple(change.target_ids)
            if change.target_change_type == TargetChangeType.NO_CHANGE:
                if is_global_snapshot(response):
                    view.append(("snapshot",))
                continue
            entry = (change.target_change_type.name, ids)
            if change.target_change_type == TargetChangeType.REMOVE:
                entry = entry + (change.cause.code,)
            view.append(entry)
        elif which == "document_change":
            change = response.document_change
            view.append(("doc", change.document.name, tuple(change.target_ids), tuple(change.removed_target_ids)))
        elif which == "document_delete":
            view.append(("delete", response.document_delete.document))
        elif which == "document_remove":
            view.append(("remove", response.document_remove.document))
        else:
            view.append((which,))
    return view


class ListenModel:
    """What a client knows after applying Listen responses the way the SDKs do (watch_change.ts): per
    target, the documents it matches. RESET and REMOVE clear a target; a document_change adds the document
    to its target_ids and drops it from its removed_target_ids; document_delete / document_remove drop it
    from their removed_target_ids (from every target when that list is empty)."""

    def __init__(self):
        self.targets: dict[int, dict[str, Any]] = {}

    def apply(self, responses) -> "ListenModel":
        for response in responses:
            which = kind(response)
            if which == "target_change":
                change = response.target_change
                if change.target_change_type in (TargetChangeType.RESET, TargetChangeType.REMOVE):
                    for target_id in change.target_ids:
                        self.targets[target_id] = {}
                elif change.target_change_type == TargetChangeType.ADD:
                    for target_id in change.target_ids:
                        self.targets.setdefault(target_id, {})
            elif which == "document_change":
                change = response.document_change
                for target_id in change.target_ids:
                    self.targets.setdefault(target_id, {})[change.document.name] = change.document
                for target_id in change.removed_target_ids:
                    self.targets.setdefault(target_id, {}).pop(change.document.name, None)
            elif which in ("document_delete", "document_remove"):
                body = getattr(response, which)
                removed = list(body.removed_target_ids) or list(self.targets)
                for target_id in removed:
                    self.targets.setdefault(target_id, {}).pop(body.document, None)
        return self

    def names(self, target_id: int) -> list[str]:
        return sorted(self.targets.get(target_id, {}))

    def document(self, target_id: int, name: str):
        return self.targets[target_id][name]


def changed_names(responses) -> set[str]:
    """Names of the documents a batch of responses sends (document_change only)."""
    return {r.document_change.document.name for r in responses if kind(r) == "document_change"}


def has_reset(responses, target_id: int) -> bool:
    return any(is_target_change(r, TargetChangeType.RESET, target_id) for r in responses)


# --------------------------------------------------------------------------------------------
# Snapshot listeners (on_snapshot)


class Snapshot:
    def __init__(self, docs, changes, read_time):
        self.docs = list(docs)
        self.changes = list(changes)
        self.read_time = read_time
        self.received = time.monotonic()

    @property
    def ids(self) -> list[str]:
        return [doc.id for doc in self.docs]

    @property
    def change_view(self) -> list[tuple[str, str]]:
        """[(type name, document id)] in the order the client reports them."""
        return [(change.type.name, change.document.id) for change in self.changes]

    def __repr__(self) -> str:
        return f"Snapshot(ids={self.ids}, changes={self.change_view}, read_time={self.read_time})"


class Recorder:
    """The callback given to on_snapshot: records each snapshot; `next()` waits for one (never forever)."""

    def __init__(self):
        self._queue: queue.Queue[Snapshot] = queue.Queue()
        self.all: list[Snapshot] = []

    def __call__(self, docs, changes, read_time) -> None:
        snapshot = Snapshot(docs, changes, read_time)
        self.all.append(snapshot)
        self._queue.put(snapshot)

    def next(self, timeout: float = 10.0) -> Snapshot:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no snapshot within {timeout} s (snapshots so far: {self.all!r})"
            ) from None

    def quiet(self, seconds: float = 1.0) -> None:
        """Asserts that no snapshot arrives for `seconds`."""
        try:
            extra = self._queue.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected snapshot {extra!r}")


@pytest.fixture
def listen():
    """listen(ref_or_query) → (watch, Recorder); every watch is unsubscribed at the end of the test."""
    watches = []

    def start(target):
        recorder = Recorder()
        watch = target.on_snapshot(recorder)
        watches.append(watch)
        return watch, recorder

    yield start
    for watch in watches:
        try:
            watch.unsubscribe()
        except Exception:  # noqa: BLE001 - an already failed watch raises its reason on close
            pass
