#!/usr/bin/env python3
"""Runs Hearth's Firestore conformance tests against Google's official Cloud Firestore emulator.

    /work/main/.venv/bin/python conformance/official/run_against_official.py [pytest args…]

What it does:

1. Starts the official emulator (the Java one of the gcloud SDK) on a free loopback port through
   conformance/official_firestore.py's `Emulator` (the JVM is started directly, so it is stopped by its PID).
2. Runs pytest on the Firestore modules (test_firestore_rest, _grpc, _listen, _webchannel, _rules) with
   FIRESTORE_EMULATOR_HOST pointing at it. Those modules find the server only through the `firestore_host`
   fixture (firestore_support.py), which takes FIRESTORE_EMULATOR_HOST as it is and starts no hearth; none of
   them uses the `suite` fixture, so no Auth/Storage/Database/Hub emulator is needed (`--with-hearth`
   starts the hearth of $HEARTH_BIN, else .build/release/hearth, for those services anyway, if a test ever
   needs them).
   pytest loads conformance/official/official_plugin.py, which changes no test: by default it only makes
   the WebChannel client re-send a request the official emulator dropped without any answer (a transport
   quirk of that emulator that otherwise fails random WebChannel tests with RemoteDisconnected; see the
   plugin). `--strict-transport` turns that off.
3. With `--diagnose`, runs the failed tests a second time with message texts not compared
   (OFFICIAL_LENIENT_MESSAGES, see the plugin): a test that passes then differs only in production's
   wording; one that still fails differs in behaviour, and its second failure is reported.
4. Writes JUnit XML reports and a JSON summary (default directory: /tmp/official-firestore-run) and compares
   the outcome with conformance/official/classification.json (every test known to fail against the official
   emulator, its category and a one-line reason; DIFFERENCES.md explains them): it prints failures nobody
   has classified yet and classified tests that now pass.
5. Stops the emulator (and hearth, if started) by PID.

Extra arguments go to pytest, e.g. `-k listen` or a single node id
(`test_firestore_rest.py::test_create_over_an_existing_document_is_already_exists`).
Exit code: 0 when the outcome matches the classification, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFORMANCE = HERE.parent
REPO = CONFORMANCE.parent
sys.path.insert(0, str(CONFORMANCE))

import official_firestore  # noqa: E402

MODULES = [
    "test_firestore_rest.py",
    "test_firestore_grpc.py",
    "test_firestore_listen.py",
    "test_firestore_webchannel.py",
    "test_firestore_rules.py",
]
CLASSIFICATION = HERE / "classification.json"
HEARTH_SNAPSHOT = os.environ.get("HEARTH_BIN") or str(HERE.parent.parent / ".build" / "release" / "hearth")
TABLE_ROW = re.compile(r"│\s*(?P<name>[^│]+?)\s*│\s*(?P<address>\S+:\d+)\s*│")
READY_LINE = "All emulators ready!"


class Hearth:
    """A hearth for the non-Firestore services (auth, database, storage, hub); stopped by PID."""

    def __init__(self, binary: str, log_dir: Path):
        self.log = open(log_dir / "hearth.log", "w")
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.proc = subprocess.Popen(
            [binary, "start", "--only", "auth,database,storage", "--port", "auth=0", "--port", "database=0",
             "--port", "storage=0", "--port", "hub=0", "--project", "demo-official"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            cwd=tempfile.mkdtemp(prefix="hearth-official-"))
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.log.write(line)
            self.log.flush()
            self.lines.append(line)
            if READY_LINE in line:
                self.ready.set()

    def addresses(self, timeout=60.0) -> dict[str, str]:
        if not self.ready.wait(timeout):
            raise RuntimeError("hearth not ready:\n" + "".join(self.lines))
        found = {}
        for line in self.lines:
            match = TABLE_ROW.search(line)
            if match:
                found[match.group("name")] = match.group("address")
        return found

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


def outcomes(junit: Path) -> dict[str, dict]:
    """node id → {"outcome": passed|failed|error|skipped, "message": first line of the failure}."""
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        node = f"{module}.py::{case.get('name')}"
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                lines = (element.get("message") or "").splitlines()
                message = lines[0][:300] if lines else ""
                break
        result[node] = {"outcome": outcome, "message": message}
    return result


def run_pytest(targets, options, env, junit: Path, log_path: Path) -> int:
    command = [sys.executable, "-m", "pytest", "-p", "official_plugin", *targets, "-q", "-rfE", "--tb=short",
               f"--junitxml={junit}", *options]
    print("+", " ".join(command), flush=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(command, cwd=CONFORMANCE, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in proc.stdout:
            sys.stdout.write(line)
            log.write(line)
        return proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/official-firestore-run", help="report directory")
    parser.add_argument("--with-hearth", action="store_true",
                        help=f"also start {HEARTH_SNAPSHOT} for auth/database/storage/hub")
    parser.add_argument("--rules", help="start the official emulator with --rules FILE")
    parser.add_argument("--diagnose", action="store_true",
                        help="re-run the failures with message texts not compared")
    parser.add_argument("--strict-transport", action="store_true",
                        help="no re-send of WebChannel requests the emulator dropped unanswered")
    args, pytest_args = parser.parse_known_args()

    if not official_firestore.installed():
        print("the official Firestore emulator (or java) is not installed", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    extra = ["--rules", args.rules] if args.rules else []
    emulator = official_firestore.Emulator(extra_args=extra, log_prefix=str(out / "official-emulator"))
    hearth = None
    env = dict(os.environ)
    for name in ("FIREBASE_AUTH_EMULATOR_HOST", "FIRESTORE_EMULATOR_HOST", "FIREBASE_DATABASE_EMULATOR_HOST",
                 "FIREBASE_STORAGE_EMULATOR_HOST", "STORAGE_EMULATOR_HOST", "FIREBASE_EMULATOR_HUB"):
        env.pop(name, None)
    try:
        emulator.start(timeout=120)
        print(f"official emulator: pid {emulator.proc.pid} on {emulator.base}", flush=True)
        env["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{emulator.port}"
        env["GCLOUD_PROJECT"] = env.get("GCLOUD_PROJECT", "demo-official")
        if args.with_hearth:
            hearth = Hearth(HEARTH_SNAPSHOT, out)
            found = hearth.addresses()
            print(f"hearth (non-Firestore services): pid {hearth.proc.pid}: {found}", flush=True)
            env["FIREBASE_AUTH_EMULATOR_HOST"] = found["Authentication"]
            env["FIREBASE_EMULATOR_HUB"] = found["Emulator Hub"]
            env["FIREBASE_STORAGE_EMULATOR_HOST"] = found["Storage"]
            env["STORAGE_EMULATOR_HOST"] = "http://" + found["Storage"]
            env["FIREBASE_DATABASE_EMULATOR_HOST"] = found["Database"]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
        if not args.strict_transport:
            env["OFFICIAL_RETRY_DROPPED"] = "1"
        junit = out / "junit.xml"
        targets = [a for a in pytest_args if ".py" in a and not a.startswith("-")] or MODULES
        options = [a for a in pytest_args if a not in targets]
        run_pytest(targets, options, env, junit, out / "pytest.log")
        results = outcomes(junit)
        diagnosis = {}
        if args.diagnose:
            failed = [n for n, e in results.items() if e["outcome"] in ("failed", "error")]
            if failed:
                lenient_junit = out / "junit-lenient.xml"
                run_pytest(failed, options, dict(env, OFFICIAL_LENIENT_MESSAGES="1"), lenient_junit,
                           out / "pytest-lenient.log")
                diagnosis = outcomes(lenient_junit)
    finally:
        emulator.stop()
        if hearth is not None:
            hearth.stop()

    known = json.loads(CLASSIFICATION.read_text()) if CLASSIFICATION.exists() else {}
    expected_fail = {node: entry for node, entry in known.get("tests", {}).items()}
    counts: dict[str, int] = {}
    for node, entry in results.items():
        counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
    bad = {n: e for n, e in results.items() if e["outcome"] in ("failed", "error")}
    per_category: dict[str, int] = {}
    for node in bad:
        category = expected_fail.get(node, {}).get("category", "unclassified")
        per_category[category] = per_category.get(category, 0) + 1
    unclassified = sorted(n for n in bad if n not in expected_fail)
    passing = [n for n in expected_fail if results.get(n, {}).get("outcome") == "passed"]
    now_passing = sorted(n for n in passing if not expected_fail[n].get("flaky"))
    flaky_passed = sorted(n for n in passing if expected_fail[n].get("flaky"))
    summary = {"counts": counts, "failed_per_category": per_category, "unclassified_failures": unclassified,
               "classified_but_passed": now_passing, "flaky_passed": flaky_passed, "results": results}
    if diagnosis:
        summary["lenient_messages"] = diagnosis
        wording_only = sorted(n for n, e in diagnosis.items() if e["outcome"] == "passed")
        print(f"\n--diagnose: {len(wording_only)} of {len(diagnosis)} failures pass when message texts are not "
              "compared; still failing:")
        for node, entry in sorted(diagnosis.items()):
            if entry["outcome"] != "passed":
                print(f"  {node}: {entry['message'][:200]}")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    print(f"\nran {len(results)} tests: {counts}")
    print(f"failed/errored per category: {per_category}")
    for node in unclassified:
        print(f"  UNCLASSIFIED  {node}: {bad[node]['message']}")
    for node in now_passing:
        print(f"  NOW PASSES    {node} (classified {expected_fail[node]['category']})")
    if flaky_passed:
        print(f"  ({len(flaky_passed)} classified flaky tests passed this time: {', '.join(flaky_passed)})")
    print(f"reports in {out}")
    return 0 if not unclassified and not now_passing else 1


if __name__ == "__main__":
    sys.exit(main())
