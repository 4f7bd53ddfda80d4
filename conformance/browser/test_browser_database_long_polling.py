"""The Realtime Database over long polling (`/.lp`) in a browser: the transport firebase-database.js 10.7.1 uses
when told to (`forceLongPolling()`) and falls back to when a WebSocket failed before (its
`firebase:previous_websocket_failure` flag in localStorage: it then starts with long polling and moves to a
WebSocket once one answers). The protocol above the transport is the WebSocket's, so what works there works
here: reads, writes, listeners seeing other clients' writes, transactions, onDisconnect.
"""

from __future__ import annotations

import time
import uuid

import pytest

from browser_support import database_get, database_put

# What the scripts below call first: long polling only, for every database of the page (a global setting).
FORCE = "fb.database.forceLongPolling();"


@pytest.fixture
def root():
    """A top-level key no other test uses."""
    return "lp" + uuid.uuid4().hex[:12]


# The long-polling requests a page made: the SDK loads them as scripts inside its hidden (same-origin)
# frames, whose resource timings list them.
LONG_POLLS = """
    const names = [];
    for (const frame of document.querySelectorAll("iframe")) {
        try { names.push(...frame.contentWindow.performance.getEntriesByType("resource").map((e) => e.name)); } catch (e) {}
    }
    const longPolls = names.filter((name) => name.includes("/.lp?"));
"""


def transports(page) -> dict:
    """How many long-polling requests the page's frames made, and how many of them opened a session."""
    return page.run(LONG_POLLS + """
        return {longPolls: longPolls.length, starts: longPolls.filter((name) => name.includes("start=t")).length};
    """)


def test_forced_long_polling_reads_writes_listens_and_transacts(page, endpoints, root):
    result = page.run(FORCE + """
        const {database: D} = fb;
        const db = h.database(h.app("a"));
        const base = D.ref(db, args.root);
        await D.set(D.child(base, "profile"), {name: "Ada", note: "é 😀 " + "x".repeat(5000)});
        const read = (await D.get(D.child(base, "profile"))).val();
        t.values = [];
        D.onValue(D.child(base, "feed"), (snapshot) => t.values.push(snapshot.val()));
        await h.until(() => t.values.length === 1, "the first (empty) value");
        const counter = D.child(base, "counter");
        await Promise.all(Array.from({length: 10}, () => D.runTransaction(counter, (n) => (n || 0) + 1)));
        return {read, counter: (await D.get(counter)).val()};
    """, root=root)
    assert result["read"] == {"name": "Ada", "note": "é 😀 " + "x" * 5000}, "a message split over several segments"
    assert result["counter"] == 10
    database_put(endpoints, f"{root}/feed", {"from": "python"})
    seen = page.run("await h.until(() => t.values.at(-1)?.from === 'python', 'the REST write'); return t.values;")
    assert seen[-1] == {"from": "python"}
    used = transports(page)
    assert used["starts"] == 1 and used["longPolls"] > 3, used
    assert database_get(endpoints, f"{root}/counter") == 10


def test_forced_long_polling_on_disconnect_after_go_offline_and_a_closed_tab(browser, page, endpoints, root):
    page.run("""
        const {database: D} = fb;
        const watcher = h.database(h.app("watcher"));
        t.seen = [];
        D.onValue(D.ref(watcher, args.root + "/presence"), (snapshot) => t.seen.push(snapshot.val()));
        await h.until(() => t.seen.length === 1, "the first value");
    """, root=root)
    tab = browser.open_tab(endpoints, of=page)
    went = tab.run(FORCE + """
        const {database: D} = fb;
        const db = h.database(h.app("user"));
        const presence = D.ref(db, args.root + "/presence");
        await D.onDisconnect(presence).set({online: false, how: "offline"});
        await D.set(presence, {online: true});
        const before = Date.now();
        D.goOffline(db);
        return before;
    """, root=root)
    result = page.run("await h.until(() => t.seen.at(-1)?.how === 'offline', 'the goOffline onDisconnect'); return t.seen.at(-1);")
    assert result == {"online": False, "how": "offline"}
    assert time.time() * 1000 - went < 10_000
    tab.run("""
        const {database: D} = fb;
        const db = h.database(h.app("user2"));
        const presence = D.ref(db, args.root + "/presence");
        await D.onDisconnect(presence).set({online: false, how: "closed"});
        await D.set(presence, {online: true});
    """, root=root)
    page.run("await h.until(() => t.seen.at(-1)?.online === true, 'the second session online');")
    closed = time.monotonic()
    tab.close_tab()
    result = page.run("await h.until(() => t.seen.at(-1)?.how === 'closed', 'the closed tab onDisconnect'); return t.seen.at(-1);")
    assert result == {"online": False, "how": "closed"}
    assert time.monotonic() - closed < 10, "the closing page's beacon ends the session at once"


def test_after_a_websocket_failure_the_sdk_starts_long_polling_and_moves_to_a_websocket(page, endpoints, root):
    """With the failure flag set, the SDK connects by long polling, opens a WebSocket for the same session
    (`/.ws?…&s=<session>`), and once it answers hands the session over: listens and writes made before the
    move keep working after it, and the healthy socket clears the flag."""
    page.expect_console("long poll after the move")  # seen once in a full run: a poll that outran the move
    result = page.run("""
        localStorage.setItem("firebase:previous_websocket_failure", "true");
        const {database: D} = fb;
        const db = h.database(h.app("a"));
        t.values = [];
        D.onValue(D.ref(db, args.root + "/feed"), (snapshot) => t.values.push(snapshot.val()));
        await D.set(D.ref(db, args.root + "/before"), "written by long polling");
        await h.until(() => localStorage.getItem("firebase:previous_websocket_failure") === null,
                      "the upgraded WebSocket to be healthy", 15000);
        await D.set(D.ref(db, args.root + "/after"), "written after the move");
        const counter = D.ref(db, args.root + "/counter");
        await D.runTransaction(counter, (n) => (n || 0) + 1);
        return true;
    """, root=root)
    assert result
    database_put(endpoints, f"{root}/feed", {"from": "python"})
    seen = page.run("await h.until(() => t.values.at(-1)?.from === 'python', 'the REST write after the move'); return t.values;")
    assert seen[-1] == {"from": "python"}
    stored = database_get(endpoints, root)
    assert stored["before"] == "written by long polling" and stored["after"] == "written after the move"
    assert stored["counter"] == 1
