#!/usr/bin/env bash
# The speed guard: the release build's instructions per record on the hot
# paths, counted by callgrind and held to Benchmarks/thresholds.json
# (Benchmarks/guard.py). A path more than 4 % over its threshold fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/build-settings.sh"
"$root/scripts/bootstrap.sh" --bench-tools
swift build "${build_settings[@]}" --package-path "$root" --product pktbench
python3 "$root/Benchmarks/guard.py" --binary "$root/.build/release/pktbench"
