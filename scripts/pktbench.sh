#!/usr/bin/env bash
# Runs pktbench from a fresh checkout: installs libpcap if missing, builds
# (release, once), then runs the command with the given arguments. A plain
# release build: the tests' build enables testing, which costs some speed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/bootstrap.sh"
swift build -c release --package-path "$root" --product pktbench >&2
exec "$root/.build/release/pktbench" "$@"
