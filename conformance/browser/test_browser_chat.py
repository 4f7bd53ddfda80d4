"""The chat app (shared/seeds, shared/design.md §1) as it runs in a browser, against the `suite` (under `hearth
exec`: the repo's emulator.json with the chat app's firestore.rules, storage.rules and database.rules.json).

Two users in two tabs: A uploads a PDF to `documents/{conversationId}/{messageId}/document.pdf` and posts a message
with the attachment; B's snapshot listener sees it (the story's acceptance criterion: within 3 s) and downloads the
same bytes; B sends a read receipt. C, signed in but not a participant, is refused everywhere (Firestore
permission-denied, Storage storage/unauthorized; the storage rules decide with firestore.get() of the conversation).
Presence: a tab that goes away shows as offline to the others through its onDisconnect write.
"""

from __future__ import annotations

import hashlib
import time
import uuid

import pytest
import requests

from browser_support import Endpoints, database_get

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def endpoints(suite) -> Endpoints:
    """The suite under test (the chat app's rules), not an open hearth."""
    return Endpoints(suite.project_id, suite.auth_host, suite.firestore_host, suite.database_host, suite.storage_host)


def unique_email(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@example.com"


# Signs a user up in a new app (`label`) with every service connected: t.users[label] = {auth, db, storage, rtdb, uid}.
SIGN_UP = """
    const {auth: A, firestore: F} = fb;
    const made = h.app(args.label);
    const auth = h.auth(made);
    const credential = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
    await A.updateProfile(credential.user, {displayName: args.label});
    const user = {auth, db: h.firestore(made), storage: h.storage(made), rtdb: h.database(made),
                  uid: credential.user.uid};
    await F.setDoc(F.doc(user.db, "users", user.uid), {id: user.uid, email: args.email, displayName: args.label,
                                                      isOnline: true, createdAt: F.serverTimestamp()});
    (t.users ??= {})[args.label] = user;
    return user.uid;
"""

# A PDF of `args.size` bytes (a header, filler, the trailer) and its SHA-256, as t.pdf / the result.
MAKE_PDF = """
    const head = new TextEncoder().encode("%PDF-1.4\\n%\\u00e2\\u00e3\\u00cf\\u00d3\\n");
    const tail = new TextEncoder().encode("\\n%%EOF\\n");
    const pdf = new Uint8Array(args.size);
    for (let i = 0; i < pdf.length; i++) pdf[i] = 32 + ((i * 7) % 90);
    pdf.set(head, 0);
    pdf.set(tail, pdf.length - tail.length);
    t.pdf = pdf;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", pdf));
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
"""

# Forces a refresh of t.users[args.label]'s ID token once a second has passed since it was issued (tokens carry
# `iat` in seconds, so the new one differs), as the SDK does when a token nears its expiry.
NEXT_TOKEN = """
    const user = t.users[args.label].auth.currentUser;
    const before = await fb.auth.getIdTokenResult(user);
    const issued = Date.parse(before.issuedAtTime);
    await h.until(() => Date.now() >= issued + 1050, "the next second", 3000);
    const after = await fb.auth.getIdTokenResult(user, true);
    return {changed: after.token !== before.token};
"""

SHA256 = """
    const hex = async (bytes) => Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
                                            (b) => b.toString(16).padStart(2, "0")).join("");
"""


def test_pdf_message_reaches_the_other_participant(browser, page, endpoints):
    page.expect_console("storage rules refusal")
    a_uid = page.run(SIGN_UP, label="A", email=unique_email("chat-a"))
    tab = browser.open_tab(endpoints, of=page)
    b_uid = tab.run(SIGN_UP, label="B", email=unique_email("chat-b"))

    conversation = page.run("""
        const {firestore: F} = fb;
        const a = t.users.A;
        const conversation = F.doc(F.collection(a.db, "conversations"));
        await F.setDoc(conversation, {id: conversation.id, participantIds: [a.uid, args.b], isGroup: false,
                                      lastMessage: "", lastMessageTimestamp: F.serverTimestamp(),
                                      unreadCounts: {[args.b]: 0}});
        return conversation.id;
    """, b=b_uid)

    # B opens the conversation: a listener on its messages, oldest first.
    tab.run("""
        const {firestore: F} = fb;
        const b = t.users.B;
        t.messages = [];
        t.errors = [];
        const messages = F.query(F.collection(b.db, "conversations", args.conversation, "messages"),
                                 F.orderBy("timestamp"));
        t.unsubscribe = F.onSnapshot(messages, {includeMetadataChanges: true}, (snapshot) => {
          for (const change of snapshot.docChanges()) {
            if (!change.doc.metadata.hasPendingWrites) t.messages.push({at: Date.now(), type: change.type,
                                                                         data: change.doc.data()});
          }
        }, (error) => t.errors.push(error.code));
        await h.sleep(200);
        if (t.errors.length) throw new Error("B's listener failed: " + t.errors);
    """, conversation=conversation)

    # A attaches a PDF: upload with progress, then the message with the download URL.
    digest = page.run(MAKE_PDF, size=MIB + 12345)
    sent = page.run("""
        const {firestore: F, storage: S} = fb;
        const a = t.users.A;
        const messages = F.collection(a.db, "conversations", args.conversation, "messages");
        const message = F.doc(messages);
        const path = `documents/${args.conversation}/${message.id}/document.pdf`;
        const task = S.uploadBytesResumable(S.ref(a.storage, path), t.pdf, {contentType: "application/pdf"});
        const progress = [];
        task.on("state_changed", (snapshot) => progress.push(snapshot.bytesTransferred / snapshot.totalBytes));
        const uploaded = await task;
        const url = await S.getDownloadURL(uploaded.ref);
        const sentAt = Date.now();
        await F.setDoc(message, {
          id: message.id, conversationId: args.conversation, senderId: a.uid, text: "the contract",
          timestamp: F.serverTimestamp(), status: "sent",
          attachments: [{id: message.id, type: "file", url, sizeBytes: t.pdf.length, fileName: "document.pdf"}],
        });
        await F.updateDoc(F.doc(a.db, "conversations", args.conversation),
                          {lastMessage: "📄 document.pdf", lastMessageTimestamp: F.serverTimestamp()});
        return {id: message.id, path, url, sentAt, progress, size: uploaded.metadata.size,
                contentType: uploaded.metadata.contentType};
    """, conversation=conversation)
    assert sent["size"] == MIB + 12345 and sent["contentType"] == "application/pdf"
    assert sent["progress"][-1] == 1 and len(sent["progress"]) >= 3, sent["progress"]

    received = tab.run(SHA256 + """
        const {storage: S, firestore: F} = fb;
        const b = t.users.B;
        await h.until(() => t.messages.length, "A's message at B", 5000);
        const seen = t.messages[0];
        const attachment = seen.data.attachments[0];
        const path = `documents/${args.conversation}/${seen.data.id}/${attachment.fileName}`;
        const viaRules = await S.getBytes(S.ref(b.storage, path));
        const viaUrl = await (await fetch(attachment.url)).arrayBuffer();
        // The read receipt: B may change only the message's status.
        const message = F.doc(b.db, "conversations", args.conversation, "messages", seen.data.id);
        await F.updateDoc(message, {status: "read"});
        let edit;
        try {
          await F.updateDoc(message, {text: "forged"});
          edit = "edited";
        } catch (error) { edit = error.code; }
        return {at: seen.at, type: seen.type, senderId: seen.data.senderId, text: seen.data.text,
                timestamp: seen.data.timestamp.toMillis(), attachment, rules: await hex(viaRules),
                url: await hex(viaUrl), edit, errors: t.errors};
    """, conversation=conversation)
    assert received["errors"] == []
    assert received["type"] == "added"
    assert received["senderId"] == a_uid and received["text"] == "the contract"
    assert received["attachment"] == {"id": sent["id"], "type": "file", "url": sent["url"], "sizeBytes": MIB + 12345,
                                      "fileName": "document.pdf"}
    assert received["rules"] == digest, "B downloads A's bytes through the rules"
    assert received["url"] == digest, "B downloads A's bytes through the download URL"
    latency = received["at"] - sent["sentAt"]
    assert latency < 3000, f"the story's criterion: B sees the message within 3 s, took {latency} ms"
    assert abs(received["timestamp"] - time.time() * 1000) < 60_000
    assert received["edit"] == "permission-denied", "only the sender edits a message's text"

    # B's ID token is refreshed (as the SDK does every hour): Firestore restarts B's streams with the new token,
    # and B's listener keeps receiving A's messages.
    refreshed = tab.run(NEXT_TOKEN, label="B")
    assert refreshed["changed"], "a forced refresh a second later gives a new token"
    page.run("""
        const {firestore: F} = fb;
        const a = t.users.A;
        await F.addDoc(F.collection(a.db, "conversations", args.conversation, "messages"),
                       {senderId: a.uid, text: "after B's refresh", timestamp: F.serverTimestamp(), status: "sent"});
    """, conversation=conversation)
    second = tab.run("""
        await h.until(() => t.messages.some((m) => m.data.text === "after B's refresh"), "A's second message at B",
                      5000);
        return t.errors;
    """)
    assert second == []

    # C is signed in but not in the conversation.
    page.run(SIGN_UP, label="C", email=unique_email("chat-c"))
    refusals = page.run("""
        const {firestore: F, storage: S} = fb;
        const c = t.users.C;
        const attempt = async (call) => {
          try { await call(); return "allowed"; } catch (error) { return error.code; }
        };
        const messages = F.collection(c.db, "conversations", args.conversation, "messages");
        const listened = await new Promise((resolve) => {
          const unsubscribe = F.onSnapshot(messages,
            () => { unsubscribe(); resolve("snapshot"); }, (error) => resolve(error.code));
        });
        return {
          listen: listened,
          getMessage: await attempt(() => F.getDoc(F.doc(messages, args.message))),
          getConversation: await attempt(() => F.getDoc(F.doc(c.db, "conversations", args.conversation))),
          post: await attempt(() => F.setDoc(F.doc(messages, "intruder"), {senderId: c.uid, text: "hi",
                                             timestamp: F.serverTimestamp(), status: "sent"})),
          download: await attempt(() => S.getBytes(S.ref(c.storage, args.path))),
          metadata: await attempt(() => S.getMetadata(S.ref(c.storage, args.path))),
          upload: await attempt(() => S.uploadBytes(
            S.ref(c.storage, `documents/${args.conversation}/intruder/document.pdf`), t.pdf.slice(0, 1000),
            {contentType: "application/pdf"})),
          remove: await attempt(() => S.deleteObject(S.ref(c.storage, args.path))),
        };
    """, conversation=conversation, message=sent["id"], path=sent["path"])
    assert refusals == {
        "listen": "permission-denied", "getMessage": "permission-denied", "getConversation": "permission-denied",
        "post": "permission-denied", "download": "storage/unauthorized", "metadata": "storage/unauthorized",
        "upload": "storage/unauthorized", "remove": "storage/unauthorized",
    }
    # Nothing C tried took effect: the PDF is still there, whole.
    stored = requests.get(
        f"http://{endpoints.storage}/v0/b/{endpoints.bucket}/o/{requests.utils.quote(sent['path'], safe='')}",
        params={"alt": "media"}, headers={"Authorization": "Firebase owner"}, timeout=30)
    assert stored.status_code == 200 and hashlib.sha256(stored.content).hexdigest() == digest


def test_storage_rules_refuse_wrong_type_and_size(page, endpoints):
    page.expect_console("storage rules refusal")
    page.run(SIGN_UP, label="A", email=unique_email("size-a"))
    page.run(MAKE_PDF, size=10 * MIB + 1)
    result = page.run("""
        const {firestore: F, storage: S} = fb;
        const a = t.users.A;
        const conversation = F.doc(F.collection(a.db, "conversations"));
        await F.setDoc(conversation, {id: conversation.id, participantIds: [a.uid, "someone-else"]});
        const upload = async (name, bytes, contentType) => {
          try {
            const ref = S.ref(a.storage, `documents/${conversation.id}/${name}/document.pdf`);
            const done = await S.uploadBytesResumable(ref, bytes, {contentType});
            return done.metadata.size;
          } catch (error) { return error.code; }
        };
        return {
          tenMiB: await upload("m1", t.pdf.subarray(0, args.limit), "application/pdf"),
          tooBig: await upload("m2", t.pdf, "application/pdf"),
          text: await upload("m3", t.pdf.subarray(0, 1000), "text/plain"),
        };
    """, limit=10 * MIB)
    assert result == {"tenMiB": 10 * MIB, "tooBig": "storage/unauthorized", "text": "storage/unauthorized"}


def test_presence_goes_offline_when_the_tab_closes(browser, page, endpoints):
    page.run(SIGN_UP, label="B", email=unique_email("presence-b"))
    tab = browser.open_tab(endpoints, of=page)
    a_uid = tab.run(SIGN_UP, label="A", email=unique_email("presence-a"))
    tab.run("""
        const {database: D} = fb;
        const a = t.users.A;
        const presence = D.ref(a.rtdb, "presence/" + a.uid);
        await D.onDisconnect(presence).set({online: false, lastSeen: D.serverTimestamp()});
        await D.set(presence, {online: true, lastSeen: D.serverTimestamp()});
    """)
    forged = page.run("""
        const {database: D} = fb;
        const b = t.users.B;
        t.presence = [];
        D.onValue(D.ref(b.rtdb, "presence/" + args.a), (snapshot) => t.presence.push(snapshot.val()),
                  (error) => t.presence.push("error: " + error.message));
        await h.until(() => t.presence.at(-1)?.online === true, "A online");
        // The rules grant reads at /presence/$userId only: a listener on /presence itself is cancelled.
        t.parent = await new Promise((resolve) => D.onValue(D.ref(b.rtdb, "presence"), () => resolve("allowed"),
                                                              (error) => resolve(error.message)));
        try { await D.set(D.ref(b.rtdb, "presence/" + args.a), {online: true, lastSeen: 0}); return "written"; }
        catch (error) { return error.message; }
    """, a=a_uid)
    assert forged == "PERMISSION_DENIED: Permission denied"  # the SDK's code and production's message
    assert page.run("return t.parent;").startswith("permission_denied at /presence:")
    # A's token is refreshed: the SDK sends the new one on the open WebSocket, and A's writes stay allowed.
    assert tab.run(NEXT_TOKEN, label="A")["changed"]
    tab.run("""
        const {database: D} = fb;
        const a = t.users.A;
        await D.set(D.ref(a.rtdb, "presence/" + a.uid), {online: true, lastSeen: D.serverTimestamp(), refreshed: true});
    """)
    page.run("await h.until(() => t.presence.at(-1)?.refreshed === true, 'the write after the refresh');")
    closed = time.monotonic()
    tab.close_tab()
    offline = page.run("""
        await h.until(() => t.presence.at(-1)?.online === false, "A offline after the tab closed");
        return t.presence.at(-1);
    """)
    # Within moments of the socket closing (design.md §1, scenario 3): milliseconds here; the bound leaves
    # room for WebDriver's round trips on a loaded machine.
    assert time.monotonic() - closed < 10, "locally within moments of the socket closing (design.md §1, scenario 3)"
    assert abs(offline["lastSeen"] - time.time() * 1000) < 60_000
    assert database_get(endpoints, f"presence/{a_uid}") == offline
