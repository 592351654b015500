#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
# Tests run on the release build (scripts/build-settings.sh), the binary
# the end-to-end tests drive included: one build for everything, and the
# suite runs in a third of the time a debug build takes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source scripts/build-settings.sh
scripts/bootstrap.sh --test-tools
swift build "${build_settings[@]}" --build-tests
PKTBENCH_BIN="$root/.build/release/pktbench" swift test "${build_settings[@]}" --skip-build "$@"
