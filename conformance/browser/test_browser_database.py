"""The Realtime Database in a browser: firebase-database.js 10.7.1 with connectDatabaseEmulator (the wire protocol
v5 over a WebSocket) against a hearth of this module's own (open rules), with REST from Python on the other side.

The SDK's transactions send the hash of the value they started from; the server refuses a stale one
(`datastale`) and the SDK retries with the new value, so concurrent transactions from two apps all apply.
onDisconnect writes run when the socket goes: after goOffline(), after the tab closes and after a reload (a page
navigated away from stays in Chromium's back/forward cache with its socket open, against production too).
"""

from __future__ import annotations

import time
import uuid

import pytest

from browser_support import database_get, database_put, wait_for


@pytest.fixture
def root():
    """A top-level key no other test uses."""
    return "t" + uuid.uuid4().hex[:12]


def test_set_get_update_push(page, endpoints, root):
    result = page.run("""
        const {database: D} = fb;
        const db = h.database(h.app("a"));
        const base = D.ref(db, args.root);
        await D.set(D.child(base, "profile"), {name: "Ada", age: 36, admin: false, ratio: 0.5, tags: {a: true}});
        const first = (await D.get(D.child(base, "profile"))).val();
        await D.update(base, {"profile/age": 37, "profile/tags": null, "settings/theme": "dark"});
        const keys = [];
        for (const text of ["one", "two", "three"]) keys.push((await D.push(D.child(base, "messages"), {text})).key);
        const all = (await D.get(base)).val();
        return {first, all, keys};
    """, root=root)
    assert result["first"] == {"name": "Ada", "age": 36, "admin": False, "ratio": 0.5, "tags": {"a": True}}
    keys = result["keys"]
    assert len(set(keys)) == 3 and all(len(key) == 20 for key in keys)
    assert keys == sorted(keys), "push ids sort in the order they were made"
    expected = {
        "profile": {"name": "Ada", "age": 37, "admin": False, "ratio": 0.5},
        "settings": {"theme": "dark"},
        "messages": {keys[0]: {"text": "one"}, keys[1]: {"text": "two"}, keys[2]: {"text": "three"}},
    }
    assert result["all"] == expected
    assert database_get(endpoints, root) == expected


def test_on_value_sees_python_writes(page, endpoints, root):
    page.run("""
        const {database: D} = fb;
        const db = h.database(h.app("a"));
        t.values = [];
        t.top = [];
        t.unsubscribe = D.onValue(D.ref(db, args.root + "/scores"), (snapshot) => t.values.push(snapshot.val()));
        const best = D.query(D.ref(db, args.root + "/scores"), D.orderByChild("score"), D.limitToLast(2));
        t.unsubscribeTop = D.onValue(best, (snapshot) => {
          const names = [];
          snapshot.forEach((child) => { names.push(child.key); });
          t.top.push(names);
        });
        await h.until(() => t.values.length === 1 && t.top.length === 1, "the first (empty) values");
    """, root=root)
    database_put(endpoints, f"{root}/scores", {"ann": {"score": 3}, "bob": {"score": 7}})
    page.run("await h.until(() => t.values.length === 2, 'the value python set');")
    database_put(endpoints, f"{root}/scores/cat", {"score": 5})
    page.run("await h.until(() => t.values.length === 3, 'the child python added');")
    database_put(endpoints, f"{root}/scores", None)
    result = page.run("""
        await h.until(() => t.values.length === 4, "the delete");
        await h.sleep(100);
        t.unsubscribe(); t.unsubscribeTop();
        return {values: t.values, top: t.top};
    """)
    assert result["values"] == [
        None,
        {"ann": {"score": 3}, "bob": {"score": 7}},
        {"ann": {"score": 3}, "bob": {"score": 7}, "cat": {"score": 5}},
        None,
    ]
    assert result["top"] == [[], ["ann", "bob"], ["cat", "bob"], []]


def test_transactions_from_two_apps_all_apply(page, endpoints, root):
    rounds = 15
    database_put(endpoints, f"{root}/counter", 0)
    result = page.run("""
        const {database: D} = fb;
        const one = h.database(h.app("one")), two = h.database(h.app("two"));
        const seen = [];
        const increment = (db) => D.runTransaction(D.ref(db, args.root + "/counter"), (value) => {
          seen.push(value);
          return (value ?? 0) + 1;
        });
        const run = async (db) => {
          const results = [];
          for (let i = 0; i < args.rounds; i++) results.push(increment(db));  // queued at once, as a busy tab does
          return Promise.all(results);
        };
        const results = (await Promise.all([run(one), run(two)])).flat();
        return {committed: results.filter((r) => r.committed).length,
                final: (await D.get(D.ref(one, args.root + "/counter"))).val(),
                calls: seen.length, guessedNull: seen.filter((value) => value === null).length};
    """, root=root, rounds=rounds)
    assert result["committed"] == 2 * rounds
    assert result["final"] == 2 * rounds
    assert database_get(endpoints, f"{root}/counter") == 2 * rounds
    # Each app first runs its update on what it has cached (nothing: null) while the server has 0: the server
    # must refuse that hash, and the SDK runs the update again on the server's value.
    assert result["guessedNull"] >= 1
    assert result["calls"] > 2 * rounds


def test_on_disconnect_after_go_offline(page, endpoints, root):
    result = page.run("""
        const {database: D} = fb;
        const watcher = h.database(h.app("watcher")), user = h.database(h.app("user"));
        const presence = D.ref(user, args.root + "/presence");
        const connected = [];
        D.onValue(D.ref(user, ".info/connected"), (snapshot) => connected.push(snapshot.val()));
        await D.onDisconnect(presence).set({online: false, lastSeen: D.serverTimestamp()});
        await D.onDisconnect(D.ref(user, args.root + "/session")).remove();
        const cancelled = D.onDisconnect(D.ref(user, args.root + "/kept"));
        await cancelled.set("should not be written");
        await cancelled.cancel();
        await D.set(presence, {online: true});
        await D.set(D.ref(user, args.root + "/session"), {tab: 1});
        const seen = [];
        D.onValue(D.ref(watcher, args.root), (snapshot) => seen.push(snapshot.val()));
        await h.until(() => seen.length && seen.at(-1)?.presence?.online === true, "the user online");
        const before = Date.now();
        D.goOffline(user);
        await h.until(() => seen.at(-1)?.presence?.online === false, "the onDisconnect write");
        const wentOffline = Date.now() - before;
        D.goOnline(user);
        await h.until(() => connected.at(-1) === true && connected.includes(false), ".info/connected back to true");
        return {final: seen.at(-1), wentOffline, connected};
    """, root=root)
    final = result["final"]
    assert final["presence"]["online"] is False
    assert "session" not in final, "onDisconnect().remove() ran"
    assert "kept" not in final, "a cancelled onDisconnect does not run"
    assert abs(final["presence"]["lastSeen"] - time.time() * 1000) < 60_000
    assert result["wentOffline"] < 5000
    changes = [value for i, value in enumerate(result["connected"]) if i == 0 or value != result["connected"][i - 1]]
    assert changes[-3:] == [True, False, True], f".info/connected: {result['connected']}"
    assert database_get(endpoints, f"{root}/presence") == final["presence"]


@pytest.mark.parametrize("leave", ["close-tab", "reload"])
def test_on_disconnect_when_the_tab_goes_away(browser, page, endpoints, root, leave):
    """The user closes the tab, or reloads it: the page's WebSocket closes and its onDisconnect write runs.
    (Navigating to another URL is not a test here: Chromium keeps the page in its back/forward cache with the
    WebSocket still open — its TCP connection stays established — so nothing runs until the cache evicts it,
    against production as against any emulator.)"""
    page.run("""
        const {database: D} = fb;
        const watcher = h.database(h.app("watcher"));
        t.seen = [];
        D.onValue(D.ref(watcher, args.root + "/presence"), (snapshot) => t.seen.push(snapshot.val()));
        await h.until(() => t.seen.length === 1, "the first value");
    """, root=root)
    tab = browser.open_tab(endpoints, of=page)
    tab.run("""
        const {database: D} = fb;
        const db = h.database(h.app("user"));
        const presence = D.ref(db, args.root + "/presence");
        await D.onDisconnect(presence).set({online: false, lastSeen: D.serverTimestamp()});
        await D.set(presence, {online: true, lastSeen: D.serverTimestamp()});
    """, root=root)
    page.run("await h.until(() => t.seen.at(-1)?.online === true, 'the other tab online');")
    left = time.monotonic()
    if leave == "close-tab":
        tab.close_tab()
    else:
        tab.focus()
        tab.driver.refresh()
    result = page.run("""
        await h.until(() => t.seen.at(-1)?.online === false, "the closed tab's onDisconnect write");
        return t.seen.at(-1);
    """)
    assert time.monotonic() - left < 15  # a reload parses the SDK again; WebDriver's round trips count too
    assert abs(result["lastSeen"] - time.time() * 1000) < 60_000
    assert database_get(endpoints, f"{root}/presence") == result


def test_server_timestamp_and_increment(page, endpoints, root):
    before = time.time() * 1000
    result = page.run("""
        const {database: D} = fb;
        const db = h.database(h.app("a"));
        const ref = D.ref(db, args.root + "/stamped");
        const events = [];
        D.onValue(ref, (snapshot) => events.push(snapshot.val()));
        await h.until(() => events.length === 1, "the first (empty) value");
        await D.set(ref, {at: D.serverTimestamp(), hits: 1});
        await D.update(ref, {hits: D.increment(41)});
        const read = (await D.get(ref)).val();
        return {read, events};
    """, root=root)
    after = time.time() * 1000
    read = result["read"]
    assert read["hits"] == 42
    assert isinstance(read["at"], int)
    assert before - 60_000 < read["at"] < after + 60_000, "the server's clock, in milliseconds"
    assert result["events"][0] is None
    assert result["events"][-1] == read
    assert database_get(endpoints, f"{root}/stamped") == read
    # Python's REST writes resolve the same placeholders.
    database_put(endpoints, f"{root}/rest", {"at": {".sv": "timestamp"}})
    stamped = wait_for(lambda: database_get(endpoints, f"{root}/rest"), "the REST write")
    assert isinstance(stamped["at"], int) and stamped["at"] >= read["at"]
