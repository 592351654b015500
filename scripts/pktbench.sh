#!/usr/bin/env bash
# Runs pktbench from a fresh checkout: installs libpcap if missing, builds
# (release, once: the same build scripts/test.sh makes), then runs the
# command with the given arguments.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/build-settings.sh"
"$root/scripts/bootstrap.sh"
swift build "${build_settings[@]}" --package-path "$root" --product pktbench >&2
exec "$root/.build/release/pktbench" "$@"
