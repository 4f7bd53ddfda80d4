# Sourced by scripts/setup, scripts/start and scripts/test: the repo root, the Swift toolchain, logging.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The release binary users run (`scripts/start`) and the conformance tests exercise.
HEARTH_RELEASE="$ROOT/.build/release/hearth"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Swift is not a Debian package: machines of this project carry a toolchain at /opt/swift.
if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then PATH="$PATH:$candidate"; break; fi
    done
    export PATH
fi
