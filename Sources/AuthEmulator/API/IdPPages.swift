import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The emulator's fake identity provider, for the web SDK's `signInWithPopup` and `signInWithRedirect`
/// (which in emulator mode open `/emulator/auth/handler` and `/emulator/auth/iframe` on this port instead of
/// the provider and `<project>.firebaseapp.com/__/auth/…`), as the official emulator serves them:
///
/// - `GET /emulator/auth/handler?apiKey=&appName=&authType=&providerId=&redirectUrl=&eventId=[&tid=]`: a page
///   listing the accounts already signed in with that provider, and a form to add one (email, display name,
///   screen name, photo URL; or generated). Choosing one makes the provider's answer — an unsigned id token
///   of the account's claims, which `accounts:signInWithIdp` accepts — into an auth event: a popup posts it
///   to the app's iframe on this origin (through `window.opener`); a redirect keeps it in this origin's
///   session storage and goes back to `redirectUrl`. The element ids are the official page's.
/// - `GET /emulator/auth/iframe?apiKey=&appName=&v=&eid=`: the frame the SDK talks to through Google's
///   `gapi.iframes`: it answers `webStorageSupport`, hands the SDK the pending redirect event (or
///   `auth/no-auth-event`) and passes popup events on. With the Internet it loads the real `gapi` as the
///   official page does.
/// - `GET /emulator/auth/gapi.js` (Hearth's own): `gapi.iframes` for pages with no Internet. The SDK loads
///   `https://apis.google.com/js/api.js` before any popup or redirect, even against an emulator; a page that
///   includes this script first (`<script src="http://127.0.0.1:9099/emulator/auth/gapi.js">`) works offline,
///   its frame speaking the same messages over `postMessage`.
enum IdPPages {
    /// A response if `segments` name one of these pages, else `nil`.
    static func response(for request: Request, segments: [String], api: AuthAPI) async throws -> Response? {
        guard request.method == .get, segments.count == 3, segments[0] == "emulator", segments[1] == "auth" else {
            return nil
        }
        switch segments[2] {
        case "handler": return try await handler(request.queryFields, api: api)
        case "iframe": return page(iframePage)
        case "gapi.js": return script(gapiShim)
        default: return nil
        }
    }

    private static func handler(_ query: FormFields, api: AuthAPI) async throws -> Response {
        guard let apiKey = query["apiKey"], !apiKey.isEmpty else {
            return .json(["authEmulator": ["error": "missing apiKey query parameter"]], status: 400)
        }
        guard let providerID = query["providerId"], !providerID.isEmpty else {
            return .json(["authEmulator": ["error": "missing providerId query parameter"]], status: 400)
        }
        let tenantID = query["tid"] ?? query["tenantId"]
        let accounts = try await api.store.withRealm(projectID: api.defaultProjectID, tenantID: tenantID) {
            (realm: inout Realm) throws(APIError) -> [ProviderUserInfo] in
            realm.pool.users.values.sorted { $0.localId < $1.localId }.flatMap { user in
                (user.providerUserInfo ?? []).filter { $0.providerId == providerID }
            }
        }
        var items = ""
        for account in accounts {
            var claims: [String: JSONValue] = [
                "sub": .string(account.rawId), "iss": "", "aud": "", "exp": 0, "iat": 0, "email_verified": true,
            ]
            if let name = account.displayName { claims["name"] = .string(name) }
            if let screenName = account.screenName { claims["screen_name"] = .string(screenName) }
            if let email = account.email { claims["email"] = .string(email) }
            if let photo = account.photoUrl { claims["picture"] = .string(photo) }
            items += """
                <li><button type="button" class="account" data-claims="\(JSONValue.object(claims).serialized().htmlEscaped())">\
                <span class="avatar" aria-hidden="true">\((account.displayName ?? account.email ?? "?").prefix(1).uppercased().htmlEscaped())</span>\
                <span><span class="name">\((account.displayName ?? "(No display name)").htmlEscaped())</span>\
                <span class="email">\((account.email ?? "").htmlEscaped())</span></span></button></li>

                """
        }
        let html = handlerPage
            .replacingOccurrences(of: "{{provider}}", with: providerID.htmlEscaped())
            .replacingOccurrences(of: "{{accounts}}", with: items)
            .replacingOccurrences(of: "{{empty}}", with: accounts.isEmpty ? "" : "hidden")
        return page(html)
    }

    private static func page(_ html: String) -> Response {
        .uncached(html, contentType: "text/html; charset=utf-8")
    }

    private static func script(_ text: String) -> Response {
        .uncached(text, contentType: "application/javascript; charset=utf-8")
    }

    // MARK: - The pages (self-contained: no fonts, styles or scripts from elsewhere)

    private static let handlerPage = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <title>Auth Emulator IdP Login Widget</title>
        <style>
          :root { color-scheme: light dark; --bg: #fff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --accent: #0b57d0; }
          @media (prefers-color-scheme: dark) { :root { --bg: #16181d; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --accent: #7cacf8; } }
          body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
          main { max-width: 440px; margin: 0 auto; padding: 24px 20px; }
          h1 { font-size: 20px; margin: 0 0 4px; } p { margin: 0 0 16px; color: var(--muted); }
          ul { list-style: none; margin: 0 0 16px; padding: 0; border: 1px solid var(--line); border-radius: 8px; }
          li + li { border-top: 1px solid var(--line); }
          .account { display: flex; gap: 12px; align-items: center; width: 100%; padding: 10px 12px; border: 0;
                     background: none; color: inherit; font: inherit; text-align: left; cursor: pointer; }
          .account:hover, .account:focus-visible { background: color-mix(in srgb, var(--accent) 12%, transparent); }
          .avatar { flex: none; width: 32px; height: 32px; border-radius: 50%; display: grid; place-items: center;
                    background: var(--accent); color: var(--bg); font-weight: 600; }
          .name, .email { display: block; } .email { color: var(--muted); font-size: 13px; }
          label { display: block; margin: 10px 0 4px; font-weight: 500; }
          input { box-sizing: border-box; width: 100%; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px;
                  background: var(--bg); color: inherit; font: inherit; }
          .actions { display: flex; gap: 8px; margin-top: 16px; }
          button.primary, button.secondary { padding: 8px 14px; border-radius: 6px; font: inherit; cursor: pointer; }
          button.primary { background: var(--accent); color: var(--bg); border: 1px solid var(--accent); }
          button.primary:disabled { opacity: .5; cursor: default; }
          button.secondary { background: none; color: var(--accent); border: 1px solid var(--line); }
          .error { color: #d1242f; } [hidden] { display: none !important; }
        </style>
        </head>
        <body>
        <main>
          <div id="accounts">
            <h1>Sign in with {{provider}}</h1>
            <p>Choose an account of the emulator's fake identity provider, or add one.</p>
            <p id="no-accounts" {{empty}}>No {{provider}} accounts yet: add one to sign in.</p>
            <ul id="accounts-list" aria-label="Accounts">
        {{accounts}}    </ul>
            <button type="button" class="secondary js-new-account" onclick="toggleForm(true)">Add new account</button>
          </div>
          <form id="new-account" hidden novalidate>
            <h1>Add an account</h1>
            <p>The account exists only in this emulator.</p>
            <label for="email-input">Email</label>
            <input id="email-input" name="email" type="email" autocomplete="off" required>
            <label for="display-name-input">Display name</label>
            <input id="display-name-input" name="displayName" autocomplete="off">
            <label for="screen-name-input">Screen name</label>
            <input id="screen-name-input" name="screenName" autocomplete="off">
            <label for="profile-photo-input">Profile photo URL</label>
            <input id="profile-photo-input" name="photoUrl" type="url" autocomplete="off">
            <div class="actions">
              <button type="button" class="secondary" id="autogen">Auto-generate user information</button>
            </div>
            <div class="actions">
              <button type="button" class="secondary" onclick="toggleForm(false)">Back</button>
              <button type="submit" class="primary" id="sign-in" disabled>Sign in with {{provider}}</button>
            </div>
          </form>
          <p id="message" class="error" role="alert" hidden></p>
        </main>
        <script>
        (function () {
          const query = new URLSearchParams(location.search);
          const apiKey = query.get("apiKey"), appName = query.get("appName"), authType = query.get("authType") || "";
          const providerId = query.get("providerId"), redirectUrl = query.get("redirectUrl");
          const storageKey = apiKey + ":" + appName;
          const form = document.getElementById("new-account"), email = document.getElementById("email-input");
          const signIn = document.getElementById("sign-in"), message = document.getElementById("message");

          function fail(text) { message.textContent = text; message.hidden = false; }
          window.toggleForm = function (showForm) {
            form.hidden = !showForm;
            document.getElementById("accounts").hidden = showForm;
            (showForm ? email : document.querySelector(".js-new-account")).focus();
          };
          email.addEventListener("input", function () { signIn.disabled = !email.value.includes("@"); });
          document.getElementById("autogen").addEventListener("click", function () {
            const words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "indigo", "juniper"];
            const pick = () => words[Math.floor(Math.random() * words.length)];
            const first = pick(), last = pick(), n = Math.floor(Math.random() * 100);
            email.value = first + "." + last + "." + n + "@example.com";
            document.getElementById("display-name-input").value = first[0].toUpperCase() + first.slice(1) + " " + last[0].toUpperCase() + last.slice(1);
            document.getElementById("screen-name-input").value = last + "_" + first;
            signIn.disabled = false;
          });
          form.addEventListener("submit", function (event) {
            event.preventDefault();
            if (!email.value.includes("@")) return;
            let sub = "";
            for (let i = 0; i < 40; i++) sub += Math.floor(Math.random() * 10);
            const claims = { sub: sub, iss: "", aud: "", exp: 0, iat: 0, email: email.value, email_verified: true };
            const name = document.getElementById("display-name-input").value;
            const screenName = document.getElementById("screen-name-input").value;
            const photo = document.getElementById("profile-photo-input").value;
            if (name) claims.name = name;
            if (screenName) claims.screen_name = screenName;
            if (photo) claims.picture = photo;
            finish(claims);
          });
          for (const button of document.querySelectorAll(".account")) {
            button.addEventListener("click", function () { finish(JSON.parse(button.dataset.claims)); });
          }

          function finish(claims) {
            let urlResponse = location.origin + location.pathname + "?providerId=" + encodeURIComponent(providerId) +
              "&id_token=" + encodeURIComponent(JSON.stringify(claims));
            if (providerId.startsWith("saml.")) {
              urlResponse += "&SAMLResponse=" + encodeURIComponent(JSON.stringify({ assertion: { subject: { nameId: claims.email } } }));
            }
            const authEvent = {
              type: authType, eventId: query.get("eventId"), urlResponse: urlResponse, sessionId: "ValueNotUsedByAuthEmulator",
              postBody: "", tenantId: query.get("tid"), error: null,
            };
            if (authType.includes("Popup")) {
              let sent = false;
              try {
                const frames = window.opener ? window.opener.frames : [];
                for (let i = 0; i < frames.length; i++) {
                  try {
                    const frameQuery = new URLSearchParams(frames[i].location.search);
                    if (frames[i].location.origin !== location.origin || frameQuery.get("apiKey") !== apiKey ||
                        frameQuery.get("appName") !== appName) continue;
                    frames[i].postMessage({ eventType: "sendAuthEvent", data: { authEvent: authEvent, storageKey: storageKey },
                                            eventId: authEvent.eventId }, location.origin);
                    sent = true;
                  } catch (e) { /* a frame of another origin */ }
                }
              } catch (e) { /* no opener */ }
              if (!sent) fail("No matching frame: open this page from the app's signInWithPopup.");
            } else if (redirectUrl) {
              sessionStorage.setItem("firebase:redirectEvent:" + storageKey, JSON.stringify(authEvent));
              location.assign(redirectUrl);
            } else {
              fail("Missing redirectUrl: open this page from the app's signInWithRedirect.");
            }
          }
        })();
        </script>
        </body>
        </html>
        """

    private static let iframePage = """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Auth Emulator Helper Iframe</title></head>
        <body>
        <script>
        (function () {
          const query = new URLSearchParams(location.search);
          const storageKey = query.get("apiKey") + ":" + query.get("appName");
          const redirectKey = "firebase:redirectEvent:" + storageKey;
          const offline = location.hash.includes("hearth");
          let deliver = null;   // set once the page's SDK can take auth events
          const queued = [];

          function takeRedirectEvent() {
            const stored = sessionStorage.getItem(redirectKey);
            sessionStorage.removeItem(redirectKey);
            return stored ? JSON.parse(stored) : { type: "unknown", eventId: null, urlResponse: null, sessionId: null,
                                                   postBody: null, tenantId: null, error: { code: "auth/no-auth-event" } };
          }
          function send(authEvent) { if (deliver) deliver(authEvent); else queued.push(authEvent); }
          function ready(sender) {
            deliver = sender;
            sender(takeRedirectEvent());
            while (queued.length) sender(queued.shift());
          }
          // Popup events, from the handler page (same origin).
          window.addEventListener("message", function (event) {
            if (event.origin !== location.origin || !event.data || event.data.eventType !== "sendAuthEvent") return;
            send(event.data.data.authEvent);
          });

          if (offline) {
            // Hearth's gapi.iframes for pages with no Internet (/emulator/auth/gapi.js), over postMessage.
            const parentOrigin = document.referrer ? new URL(document.referrer).origin : "*";
            const post = (message) => parent.postMessage(Object.assign({ hearthAuth: true }, message), parentOrigin);
            window.addEventListener("message", function (event) {
              const data = event.data;
              if (event.source !== parent || !data || !data.hearthAuth) return;
              if (data.kind === "send" && data.type === "webStorageSupport") {
                post({ kind: "reply", id: data.id, replies: [{ status: "ACK", webStorageSupport: true }] });
              } else if (data.kind === "registered" && data.type === "authEvent") {
                ready((authEvent) => post({ kind: "message", type: "authEvent", data: { type: "authEvent", authEvent: authEvent } }));
              }
            });
            post({ kind: "ready" });
            return;
          }
          // Online: Google's gapi.iframes, as the official emulator's page uses it.
          window.gapiLoaded = function () {
            gapi.load("gapi.iframes", function () {
              const parentFrame = gapi.iframes.getContext().getParentIframe();
              parentFrame.register("webStorageSupport", function () { return { status: "ACK", webStorageSupport: true }; },
                                   gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
              ready(function (authEvent) {
                parentFrame.send("authEvent", { type: "authEvent", authEvent: authEvent }, function () {},
                                 gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
              });
            });
          };
          const loader = document.createElement("script");
          loader.src = "https://apis.google.com/js/api.js?onload=gapiLoaded";
          document.body.appendChild(loader);
        })();
        </script>
        </body>
        </html>
        """

    private static let gapiShim = """
        // Hearth: gapi.iframes for the Firebase JS SDK's signInWithPopup / signInWithRedirect against the Auth
        // emulator on a page with no Internet (the SDK otherwise loads https://apis.google.com/js/api.js).
        // Include it before the SDK runs a popup or redirect. It opens the emulator's /emulator/auth/iframe and
        // speaks to it over postMessage.
        (function () {
          if (window.gapi && window.gapi.iframes && window.gapi.iframes.Iframe) return;
          let nextId = 0;
          function Iframe() {}
          function open(options, callback) {
            const frame = document.createElement("iframe");
            const url = new URL(options.url, location.href);
            url.hash = "hearth";
            frame.src = url.href;
            const style = (options.attributes && options.attributes.style) || {};
            Object.assign(frame.style, { position: "absolute", top: "-100px", width: "1px", height: "1px" }, style);
            frame.setAttribute("aria-hidden", "true");
            frame.tabIndex = -1;
            const origin = url.origin;
            const handlers = {}, replies = {};
            let markReady;
            const readiness = new Promise((resolve) => { markReady = resolve; });
            const post = (message) => readiness.then(() =>
              frame.contentWindow.postMessage(Object.assign({ hearthAuth: true }, message), origin));
            window.addEventListener("message", function (event) {
              const data = event.data;
              if (event.source !== frame.contentWindow || event.origin !== origin || !data || !data.hearthAuth) return;
              if (data.kind === "ready") markReady();
              else if (data.kind === "reply" && replies[data.id]) {
                const callback = replies[data.id];
                delete replies[data.id];
                try { callback(data.replies); } catch (e) { /* the SDK's callback throws once it has its answer */ }
              } else if (data.kind === "message" && handlers[data.type]) {
                handlers[data.type](data.data);
              }
            });
            const handle = new Iframe();
            handle.restyle = () => Promise.resolve();
            handle.ping = (callback) => readiness.then(() => { if (callback) callback(); });
            handle.register = (type, handler) => { handlers[type] = handler; post({ kind: "registered", type: type }); };
            handle.send = (type, data, callback) => {
              const id = ++nextId;
              replies[id] = callback || function () {};
              post({ kind: "send", id: id, type: type, data: data });
            };
            (options.where || document.body).appendChild(frame);
            return Promise.resolve(callback(handle));
          }
          window.gapi = window.gapi || {};
          window.gapi.load = window.gapi.load || function (name, done) {
            if (typeof done === "function") done(); else if (done && done.callback) done.callback();
          };
          window.gapi.iframes = { Iframe: Iframe, CROSS_ORIGIN_IFRAMES_FILTER: function () { return true; },
                                  getContext: function () { return { open: open }; } };
        })();
        """
}
