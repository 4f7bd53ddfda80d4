// The browser tests' side of the page: the Firebase JS SDK's modular builds (served under /sdk/ from the
// folder HEARTH_JSSDK names; never copied here) and the few helpers the tests' scripts call as `h.…`.
// A test first calls h.configure(endpoints), then runs scripts that make apps with h.app(label) and connect
// each service to the emulators with h.auth(app), h.firestore(app), h.database(app), h.storage(app).
import * as app from "/sdk/firebase-app.js";
import * as auth from "/sdk/firebase-auth.js";
import * as firestore from "/sdk/firebase-firestore.js";
import * as database from "/sdk/firebase-database.js";
import * as storage from "/sdk/firebase-storage.js";

let endpoints = null;  // {projectId, bucket, databaseURL, auth, firestore, database, storage}: "host:port" each
const apps = [];
const unique = Math.random().toString(36).slice(2, 10);  // app names differ from every earlier page's

function hostAndPort(address) {
  const at = address.lastIndexOf(":");
  return [address.slice(0, at).replace(/^\[|\]$/g, ""), Number(address.slice(at + 1))];
}

export const h = {
  configure(values) {
    endpoints = values;
  },

  /** A new app (one per simulated tab or user); labels must differ within a page. The app's name is the label
   * and a suffix unique to this page load, unless `exactName` is set (an app that finds its IndexedDB data
   * again after a reload). */
  app(label, options = {}, exactName = false) {
    const made = app.initializeApp({
      apiKey: "fake-api-key",
      projectId: endpoints.projectId,
      storageBucket: endpoints.bucket,
      databaseURL: endpoints.databaseURL,
      ...options,
    }, exactName ? label : `${label}-${unique}`);
    apps.push(made);
    return made;
  },

  auth(of) {
    const service = auth.getAuth(of);
    auth.connectAuthEmulator(service, `http://${endpoints.auth}`);
    return service;
  },

  /** Firestore with `settings` given to initializeFirestore (default settings when omitted). */
  firestore(of, settings) {
    const service = settings ? firestore.initializeFirestore(of, settings) : firestore.getFirestore(of);
    firestore.connectFirestoreEmulator(service, ...hostAndPort(endpoints.firestore));
    return service;
  },

  database(of) {
    const service = database.getDatabase(of);
    database.connectDatabaseEmulator(service, ...hostAndPort(endpoints.database));
    return service;
  },

  storage(of) {
    const service = storage.getStorage(of);
    storage.connectStorageEmulator(service, ...hostAndPort(endpoints.storage));
    return service;
  },

  sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  },

  /** Resolves once predicate() is truthy (checked every 10 ms); rejects after `ms` naming `what`. */
  async until(predicate, what, ms = 10000) {
    const deadline = performance.now() + ms;
    for (;;) {
      const value = predicate();
      if (value) return value;
      if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await h.sleep(10);
    }
  },

  /** Deletes every app this page made, which closes their streams, sockets and listeners. */
  async cleanup() {
    const made = apps.splice(0);
    await Promise.all(made.map((one) => app.deleteApp(one)));
  },
};

window.fb = { app, auth, firestore, database, storage };
window.h = h;
window.t = {};  // scratch space the tests' scripts share between calls on one page
window.harnessReady = true;
