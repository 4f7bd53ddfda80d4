"""Starting a hearth for a benchmark: `hearth start --only <emulator>` on free ports in a temporary
folder, with no emulator variables inherited, and its address read off the ready table."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

READY_LINE = "All emulators ready"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binary(explicit: str | None) -> str:
    """--bin, else $HEARTH_BIN, else .build/release/hearth; exits the program if it is not there."""
    path = explicit or os.environ.get("HEARTH_BIN") or os.path.join(ROOT, ".build/release/hearth")
    if not os.access(path, os.X_OK):
        sys.exit(f"no hearth binary at {path}: build one with `swift build -c release --product hearth`")
    return path


def clean_environment() -> dict[str, str]:
    """The environment without the variables that point clients (or hearth) at running emulators."""
    return {key: value for key, value in os.environ.items()
            if not key.endswith("_EMULATOR_HOST") and key not in ("FIREBASE_EMULATOR_HUB", "GCLOUD_PROJECT")}


def start(binary: str, emulator: str, display_name: str, project: str
          ) -> tuple[subprocess.Popen, str, tempfile.TemporaryDirectory]:
    """Starts `hearth start --only <emulator>` and returns the process, its `host:port` and its folder;
    exits the program if it is not ready within 30 s."""
    row = re.compile(rf"│\s*{re.escape(display_name)}\s*│\s*(?P<host>[\d.]+):(?P<port>\d+)\s*│")
    folder = tempfile.TemporaryDirectory(prefix=f"bench-{emulator}-hearth-")
    process = subprocess.Popen(
        [binary, "start", "--only", emulator, "--project", project, "--port", f"{emulator}=0", "--port", "hub=0"],
        cwd=folder.name, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        env=clean_environment())
    deadline = time.monotonic() + 30
    host = None
    output = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        match = row.search(line)
        if match:
            host = f"{match['host']}:{match['port']}"
        if READY_LINE in line and host:
            # Keep draining its output so a chatty server never blocks on a full pipe.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, host, folder
    process.kill()
    folder.cleanup()
    sys.exit(f"hearth did not become ready (no {display_name} row and ready line within 30 s):\n" + "".join(output))


@contextlib.contextmanager
def running(binary: str, emulator: str, display_name: str, project: str):
    """`start`, as a block: yields the process and its `host:port`, then stops it and removes its folder."""
    process, host, folder = start(binary, emulator, display_name, project)
    try:
        yield process, host
    finally:
        process.terminate()
        process.wait(30)
        folder.cleanup()
