"""Helpers to run Google's official Cloud Firestore emulator (the Java one
shipped with the gcloud SDK) on a free loopback port, talk to it over REST,
and stop it again by PID.

Used by the recorders in conformance/recorders and by the tests that compare with it (skipped where it is
not installed: `installed()`).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse

import requests

EMU_DIR = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator"
EMU_JAR = os.path.join(EMU_DIR, "cloud-firestore-emulator.jar")
MAIN_CLASS = "com.google.cloud.datastore.emulator.firestore.CloudFirestore"
AUTH = {"Authorization": "Bearer owner"}


def installed() -> bool:
    """Whether the official emulator is on this machine (the Google Cloud SDK's component)."""
    return os.path.exists(EMU_JAR) and shutil.which("java") is not None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Emulator:
    """One emulator process.  We start `java` directly (the wrapper shell
    script does not exec, so its PID would not be the JVM's)."""

    def __init__(self, extra_args=(), log_prefix=None, port=None):
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        self.log_prefix = log_prefix
        self.proc = None
        self.stdout_path = self.stderr_path = None

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, timeout=60, expect_ready=True):
        cmd = ["java", "-Duser.language=en", "-cp", EMU_JAR, MAIN_CLASS, "start",
               "--host", "127.0.0.1", "--port", str(self.port)] + self.extra_args
        prefix = self.log_prefix or os.path.join(tempfile.gettempdir(), "official-firestore-%d" % self.port)
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        self.stdout_path, self.stderr_path = prefix + ".stdout", prefix + ".stderr"
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdout=open(self.stdout_path, "wb"),
                                     stderr=open(self.stderr_path, "wb"),
                                     stdin=subprocess.DEVNULL)
        if not expect_ready:
            return self
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("emulator exited early rc=%s\n%s" % (
                    self.proc.returncode, self.logs()))
            try:
                r = requests.get(self.base + "/", timeout=1)
                if r.status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError("emulator did not become ready\n" + self.logs())

    def logs(self):
        out = []
        for p in (self.stdout_path, self.stderr_path):
            if p and os.path.exists(p):
                out.append(open(p, errors="replace").read())
        return "\n".join(out)

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        os.kill(self.proc.pid, sig)          # by PID, never by name
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            return self.proc.wait(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---------------- REST helpers ----------------
    def db_root(self, project, database="(default)"):
        return "%s/v1/projects/%s/databases/%s/documents" % (self.base, project, database)

    def _write_fields(self, method, project, path, fields, database):
        url = self.db_root(project, database) + "/" + quote_path(path)
        r = requests.request(method, url, headers=AUTH, json={"fields": fields})
        if r.status_code != 200:
            raise RuntimeError("%s %s -> %s %s" % (method, path, r.status_code, r.text))
        return r.json()

    def patch(self, project, path, fields, database="(default)"):
        return self._write_fields("PATCH", project, path, fields, database)

    def create_auto(self, project, collection_path, fields, database="(default)"):
        return self._write_fields("POST", project, collection_path, fields, database)

    def commit(self, project, writes, database="(default)"):
        url = "%s/v1/projects/%s/databases/%s/documents:commit" % (self.base, project, database)
        r = requests.post(url, headers=AUTH, json={"writes": writes})
        if r.status_code != 200:
            raise RuntimeError("commit -> %s %s" % (r.status_code, r.text[:2000]))
        return r.json()

    def _pages(self, request, url, key, params):
        """Every item under `key` of a paged listing (`request(url, params_with_token)` makes one call)."""
        items, token = [], None
        while True:
            page = dict(params, **({"pageToken": token} if token else {}))
            r = request(url, page)
            r.raise_for_status()
            j = r.json()
            items += j.get(key, [])
            token = j.get("nextPageToken")
            if not token:
                return items

    def list_collection_ids(self, project, parent_path="", database="(default)"):
        url = self.db_root(project, database)
        if parent_path:
            url += "/" + quote_path(parent_path)
        return self._pages(lambda u, body: requests.post(u + ":listCollectionIds", headers=AUTH, json=body),
                           url, "collectionIds", {"pageSize": 1000})

    def list_docs(self, project, collection_path, database="(default)", show_missing=True):
        url = self.db_root(project, database) + "/" + quote_path(collection_path)
        params = {"pageSize": 1000, **({"showMissing": "true"} if show_missing else {})}
        return self._pages(lambda u, query: requests.get(u, headers=AUTH, params=query), url, "documents", params)

    def dump_all(self, project, database="(default)"):
        """Walk every collection recursively.  Returns (documents, missing)
        where documents are REST Document objects (as returned by GET) and
        missing are names of documents that only exist as parents."""
        prefix = "projects/%s/databases/%s/documents/" % (project, database)
        docs, missing = [], []
        self.foreign_seen = []

        def walk(parent):
            for cid in self.list_collection_ids(project, parent, database):
                cpath = (parent + "/" + cid) if parent else cid
                for d in self.list_docs(project, cpath, database):
                    if not d["name"].startswith(prefix):
                        # emulator quirk: after --import-data, showMissing=true
                        # listings also return same-path docs of other databases
                        self.foreign_seen.append(d["name"])
                        continue
                    if "fields" in d or "createTime" in d:
                        docs.append(d)
                    else:
                        missing.append(d["name"])
                    walk(d["name"][len(prefix):])
        walk("")
        docs.sort(key=lambda d: d["name"])
        missing.sort()
        return docs, missing

    def export(self, project, directory, database="(default)", export_name=None):
        body = {"database": "projects/%s/databases/%s" % (project, database),
                "export_directory": directory}
        if export_name is not None:
            body["export_name"] = export_name
        r = requests.post("%s/emulator/v1/projects/%s:export" % (self.base, project),
                          json=body)
        return r



def quote_path(path):
    return "/".join(urllib.parse.quote(seg, safe="") for seg in path.split("/"))


def dump_json(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False, sort_keys=False)
        f.write("\n")
