"""A pytest plugin run_against_official.py loads (`-p official_plugin`) when the Firestore conformance tests run
against Google's official emulator. It changes no test; it only adjusts the shared client helpers, each
adjustment behind an environment variable the runner sets:

OFFICIAL_RETRY_DROPPED=1
    The WebChannel client (firestore_webchannel_support.WebChannel) re-sends a request whose connection the
    server closed without any answer (RemoteDisconnected), up to 3 times, as Closure's WebChannel does with
    a failed forward POST (same RID and maps; the server drops maps it already has) or back channel. The
    official emulator (a) closes the TCP connection after every WebChannel response without a
    `Connection: close` header, so a pooled connection can be reused just as it closes, and (b) now and
    then closes a new connection without answering when a request follows the previous one within a few
    milliseconds. Both make tests fail at random with RemoteDisconnected; the retry removes that transport
    noise without changing anything the tests look at (an answered request is never repeated).

OFFICIAL_LENIENT_MESSAGES=1   (diagnosis only)
    firestore_support.firestore_error() checks the HTTP status, `error.code` and `error.status` but not the
    message text, so a test that fails only on production's wording goes on to its later assertions. Used
    by `run_against_official.py --diagnose` to tell wording differences from behaviour differences.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CONFORMANCE = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    if str(CONFORMANCE) not in sys.path:
        sys.path.insert(0, str(CONFORMANCE))

    if os.environ.get("OFFICIAL_RETRY_DROPPED") == "1":
        import firestore_webchannel_support as wc
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry

        original_init = wc.WebChannel.__init__

        def init(self, *args, **kwargs):
            original_init(self, *args, **kwargs)
            # read=3: a connection closed before any status line is a read error; no status-based retry,
            # every method (a WebChannel forward POST is safe to repeat: maps are numbered).
            retry = Retry(total=3, connect=3, read=3, status=0, other=0, allowed_methods=None,
                          raise_on_status=False, backoff_factor=0)
            adapter = HTTPAdapter(max_retries=retry)
            self.http.mount("http://", adapter)

        wc.WebChannel.__init__ = init

    if os.environ.get("OFFICIAL_LENIENT_MESSAGES") == "1":
        import firestore_support as fs

        original_error = fs.firestore_error

        def lenient_error(response, code, status, message=None):
            return original_error(response, code, status, None)

        fs.firestore_error = lenient_error
