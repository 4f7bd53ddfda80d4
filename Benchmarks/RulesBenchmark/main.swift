// Prints rules decisions per second for the chat app's storage rules (with firestore.get on the
// conversation) and Firestore rules (with get() of the parent conversation). One thread: per-core figures.
//
//   swift run -c release RulesBenchmark

import Foundation
import SecurityRules

let storageRules = """
    rules_version = '2';
    service firebase.storage {
      match /b/{bucket}/o {
        function isAuthenticated() { return request.auth != null; }
        function isParticipant(conversationId) {
          return request.auth.uid in firestore.get(
            /databases/(default)/documents/conversations/$(conversationId)).data.participantIds;
        }
        match /documents/{conversationId}/{messageId}/{filename} {
          allow write: if isAuthenticated() && isParticipant(conversationId)
            && request.resource.size < 10 * 1024 * 1024
            && request.resource.contentType == 'application/pdf';
          allow read: if isAuthenticated() && isParticipant(conversationId);
        }
        match /images/{conversationId}/{messageId}/{filename} {
          allow write: if isAuthenticated() && isParticipant(conversationId)
            && request.resource.size < 2 * 1024 * 1024;
          allow read: if isAuthenticated() && isParticipant(conversationId);
        }
        match /profile_pictures/{userId}/{fileName} {
          allow read: if request.auth != null;
          allow write: if request.auth.uid == userId && request.resource.size < 10 * 1024 * 1024
            && request.resource.contentType.matches('image/.*');
        }
      }
    }
    """

let firestoreRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /users/{uid} {
          allow read: if request.auth != null;
          allow write: if request.auth.uid == uid;
        }
        match /conversations/{conversationId} {
          allow read: if request.auth.uid in resource.data.participantIds;
          allow create: if request.auth.uid in request.resource.data.participantIds;
          allow update: if request.auth.uid in resource.data.participantIds;
          match /messages/{messageId} {
            allow read, write: if request.auth.uid in
              get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds;
          }
          match /typing/{userId} {
            allow read: if request.auth.uid in
              get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds;
            allow write: if request.auth.uid == userId;
          }
        }
      }
    }
    """

/// The conversation both rules read.
struct ChatData: RulesDataSource {
    let conversation: RuleValue = .map([
        "data": .map(["participantIds": .list([.string("alice"), .string("bob")])]),
        "id": .string("c1"),
        "__name__": .path(RulePath("/databases/(default)/documents/conversations/c1")),
    ])
    func document(at path: RulePath) -> RuleValue? { path.segments.last == "c1" ? conversation : nil }
    func documentAfter(at path: RulePath) -> RuleValue? { document(at: path) }
}

func compile(_ text: String, _ name: String) -> CompiledRuleset {
    let compilation = RulesCompiler.compile(RulesSource(fileName: name, text: text))
    guard let ruleset = compilation.ruleset else {
        compilation.diagnostics.forEach { print($0) }
        exit(1)
    }
    return ruleset
}

func auth(_ uid: String) -> RuleValue { .map(["uid": .string(uid), "token": .map(["sub": .string(uid)])]) }

/// How long each measurement runs (`BENCH_SECONDS`, default 2).
let duration = Duration.seconds(Double(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 2)

func measure(_ label: String, _ ruleset: CompiledRuleset, _ requests: [(RulesRequest, Bool)]) {
    let data = ChatData()
    for (request, expected) in requests where ruleset.evaluate(request, data: data).allowed != expected {
        print("\(label): wrong decision for \(request.path) \(request.method)")
        exit(1)
    }
    var decisions = 0
    let start = ContinuousClock.now
    var elapsed = Duration.zero
    while elapsed < duration {
        for (request, _) in requests { _ = ruleset.evaluate(request, data: data) }
        decisions += requests.count
        elapsed = ContinuousClock.now - start
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(decisions) / seconds
    print("\(label): \(Int(rate)) decisions/s on one core (\(String(format: "%.2f", 1e6 / rate)) µs each; goal ≥ 200000)")
}

let now = RuleValue.timestamp(RuleTimestamp(seconds: 1_700_000_000))
let upload = RuleValue.map(["size": .int(1_000_000), "contentType": .string("application/pdf"), "name": .string("x")])
func storage(_ method: RuleMethod, _ path: String, uid: String?, resource: RuleValue = .null) -> RulesRequest {
    RulesRequest(
        service: .storage, path: RulePath(path), method: method,
        request: .map(["auth": uid.map(auth) ?? .null, "time": now, "resource": resource]), resource: .null)
}
func firestore(_ method: RuleMethod, _ path: String, uid: String?) -> RulesRequest {
    RulesRequest(
        service: .firestore, path: RulePath("/databases/(default)/documents" + path), method: method,
        request: .map(["auth": uid.map(auth) ?? .null, "time": now, "resource": .map(["data": .map(["text": .string("hi")])])]),
        resource: .null)
}

measure(
    "storage.rules (chat app)", compile(storageRules, "storage.rules"),
    [
        (storage(.create, "/b/app/o/documents/c1/m1/document.pdf", uid: "alice", resource: upload), true),
        (storage(.get, "/b/app/o/documents/c1/m1/document.pdf", uid: "bob"), true),
        (storage(.get, "/b/app/o/documents/c1/m1/document.pdf", uid: "mallory"), false),
        (storage(.create, "/b/app/o/documents/c1/m1/document.pdf", uid: nil, resource: upload), false),
    ])
measure(
    "firestore.rules (chat app)", compile(firestoreRules, "firestore.rules"),
    [
        (firestore(.create, "/conversations/c1/messages/m1", uid: "alice"), true),
        (firestore(.list, "/conversations/c1/messages/m1", uid: "bob"), true),
        (firestore(.get, "/conversations/c1/messages/m1", uid: "mallory"), false),
        (firestore(.update, "/users/alice", uid: "alice"), true),
    ])
