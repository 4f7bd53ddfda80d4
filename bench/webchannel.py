#!/usr/bin/env python3
"""How fast the web SDK sees Firestore through WebChannel, in a real browser: hearth and (when installed)
Google's official emulator, side by side in one run.

A page in headless Chromium loads the Firebase JS SDK (../shared/jssdk, or --jssdk DIR) and opens two
Firestore instances (two apps, as two browser tabs would) against the server:

  listen   app B writes a document (setDoc) that app A listens to: milliseconds from the write's call to A's
           snapshot with the new value                                            (p50 / p99 of --rounds)
  read     getDocFromServer of one small document                                (p50 / p99 of --rounds)

Times are the page's own (performance.now()), so they include the SDK's work in the browser; the server's
CPU time per round is printed beside them. The goal (issue 19): <= 3 ms for both. Nothing is asserted.

Needs Debian's chromium and chromium-driver and Selenium (pip install selenium); without them it says so
and exits.

Usage: bench/webchannel.py [--rounds 200] [--only hearth|official] [--bin PATH] [--jssdk DIR]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "conformance"))

import hearth_process  # noqa: E402
from data_dir import percentile  # noqa: E402
from firestore_calls import cpu_seconds  # noqa: E402

PROJECT = "demo-webchannel"

PAGE = """<!doctype html>
<script type="importmap">
{"imports": {"https://www.gstatic.com/firebasejs/10.7.1/firebase-app.js": "/sdk/firebase-app.js"}}
</script>
<script type="module">
import { initializeApp } from "/sdk/firebase-app.js";
import { getFirestore, connectFirestoreEmulator, doc, setDoc, onSnapshot, getDocFromServer }
  from "/sdk/firebase-firestore.js";

function firestore(name, host, port) {
  const db = getFirestore(initializeApp({ projectId: "%(project)s", apiKey: "fake" }, name));
  connectFirestoreEmulator(db, host, port);
  return db;
}

// Listen: B writes, A sees. Resolves with one latency per round, in milliseconds.
window.listenRounds = async (host, port, rounds) => {
  const a = firestore("a", host, port), b = firestore("b", host, port);
  const path = ["bench", "listened"];
  await setDoc(doc(b, ...path), { n: -1 });
  let waiting = null;
  const unsubscribe = onSnapshot(doc(a, ...path), (snapshot) => {
    if (waiting && !snapshot.metadata.hasPendingWrites && snapshot.get("n") === waiting.n) {
      const done = waiting; waiting = null; done.resolve(performance.now());
    }
  });
  const latencies = [];
  for (let n = 0; n < rounds + 20; n++) {
    const seen = new Promise((resolve) => { waiting = { n, resolve }; });
    const started = performance.now();
    setDoc(doc(b, ...path), { n }).catch((e) => console.error(`write ${n} failed: ${e}`));
    const at = await seen;
    if (n >= 20) latencies.push(at - started);  // the first rounds warm up both sides
  }
  unsubscribe();
  return latencies;
};

// Read: getDocFromServer of one small document.
window.readRounds = async (host, port, rounds) => {
  const c = firestore("c", host, port);
  const ref = doc(c, "bench", "read");
  await setDoc(ref, { text: "a small document", n: 1 });
  const latencies = [];
  for (let n = 0; n < rounds + 20; n++) {
    const started = performance.now();
    await getDocFromServer(ref);
    if (n >= 20) latencies.push(performance.now() - started);
  }
  return latencies;
};
window.ready = true;
</script>
"""


def serve_page(jssdk: Path) -> tuple[http.server.ThreadingHTTPServer, str, tempfile.TemporaryDirectory]:
    """Serves the page and the SDK from a loopback HTTP server (modules do not load from file://)."""
    folder = tempfile.TemporaryDirectory(prefix="bench-webchannel-")
    (Path(folder.name) / "index.html").write_text(PAGE % {"project": PROJECT})
    os.symlink(jssdk.resolve(), Path(folder.name) / "sdk")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder.name))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html", folder


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     # Nothing leaves the machine: WebChannel probes an external URL, which must fail fast.
                     "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_script_timeout(300)
    return driver


def measure(label: str, host: str, pid: int, url: str, rounds: int) -> dict:
    name, port = host.rsplit(":", 1)
    print(f"\n{label} ({host}, pid {pid})", flush=True)
    figures = {}
    for phase, function in (("listen", "listenRounds"), ("read", "readRounds")):
        driver = browser()  # a fresh page per phase, so one phase's streams do not idle beside the other
        try:
            driver.get(url)
            driver.execute_script("return new Promise(r => { const t = () => window.ready ? r() : setTimeout(t, 10); t(); })")
            before = cpu_seconds(pid)
            latencies = driver.execute_async_script(
                f"const done = arguments[arguments.length - 1]; window.{function}(arguments[0], arguments[1], "
                "arguments[2]).then(done, (e) => done('error: ' + e));", name, int(port), rounds)
            cpu = cpu_seconds(pid) - before
        finally:
            driver.quit()
        if isinstance(latencies, str):
            sys.exit(f"{label} {phase}: {latencies}")
        p50, p99 = statistics.median(latencies), percentile(latencies, 0.99)
        figures[phase] = p50
        print(f"  {phase:6}  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {max(latencies):6.2f} ms   "
              f"server CPU {cpu / rounds * 1e6:7.0f} us per round  (goal p50 <= 3 ms)", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--only", choices=["hearth", "official"])
    parser.add_argument("--bin")
    parser.add_argument("--jssdk", default=str(ROOT.parent / "shared" / "jssdk"))
    args = parser.parse_args()
    missing = [tool for tool in ("chromium", "chromedriver") if not shutil.which(tool)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    if not (Path(args.jssdk) / "firebase-firestore.js").exists():
        missing.append(f"the JS SDK bundles in {args.jssdk}")
    if missing:
        sys.exit("skipped: needs " + ", ".join(missing) + " (apt-get install chromium chromium-driver; pip install selenium)")
    server, url, folder = serve_page(Path(args.jssdk))
    results = {}
    try:
        if args.only != "official":
            with hearth_process.running(hearth_process.binary(args.bin), "firestore", "Firestore", PROJECT) as (
                    process, host):
                results["hearth"] = measure("hearth", host, process.pid, url, args.rounds)
        if args.only != "hearth":
            import official_firestore
            if not official_firestore.installed():
                print("\nofficial emulator: skipped (not installed)")
            else:
                emulator = official_firestore.Emulator().start()
                try:
                    results["official"] = measure("official emulator", f"127.0.0.1:{emulator.port}",
                                                  emulator.proc.pid, url, args.rounds)
                finally:
                    emulator.stop()
    finally:
        server.shutdown()
        folder.cleanup()
    if len(results) == 2:
        print("\np50 latency, hearth vs the official emulator")
        for key, ours in results["hearth"].items():
            theirs = results["official"][key]
            print(f"  {key:6} {ours:6.2f} ms vs {theirs:6.2f} ms   {theirs / ours:5.1f}x")


if __name__ == "__main__":
    main()
