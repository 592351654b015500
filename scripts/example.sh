#!/usr/bin/env bash
# CI: Examples/ExternalCodec builds from this clone as a package of its own,
# its tests pass, the pktbench it builds decodes its capture with the
# codec it adds (six readings, five acks, one reading spoiled in transit),
# and its beacon-report, on pktbench's libraries alone, reports the same.
#
# It builds in the repository's own scratch path with the same settings:
# the packages it shares with pktbench (NIO, swift-crypto, BoringSSL...)
# are built there already by the test command, and building them a second
# time was most of CI's time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/build-settings.sh"
cd "$root/Examples/ExternalCodec"
# `swift test` building for itself plans the shared modules differently
# and rebuilt all of them (3.5 minutes, and as long again for the next
# build of pktbench); built for tests by `swift build`, they are reused.
swift build "${build_settings[@]}" --scratch-path "$root/.build" --build-tests
swift test "${build_settings[@]}" --scratch-path "$root/.build" --skip-build
ndjson="$("$root/.build/release/pktbench-beacon" decode Captures/beacon.pcap --format ndjson)"
count() { grep -c "$1" <<<"$ndjson" || true; }
readings="$(count '"message":"reading"')"
acks="$(count '"message":"ack"')"
spoiled="$(count '"code":"bad-check"')"
echo "example: $readings readings, $acks acks, $spoiled bad-check"
if [ "$readings" != 5 ] || [ "$acks" != 5 ] || [ "$spoiled" != 1 ]; then
  echo "example: expected 5 clean readings, 5 acks and 1 bad-check (Captures/make_beacon_capture.py)" >&2
  exit 1
fi
report="$("$root/.build/release/beacon-report" Captures/beacon.pcap)"
if [ "$(grep -c '  reading [0-9]*: ' <<<"$report" || true)" != 5 ] || ! grep -q 'frame 7 .* bad-check at byte 9' <<<"$report" \
  || ! grep -q '^summary: 1 flow (1 warning); 0 errors, 1 warning, 0 notes; verdict WARNING$' <<<"$report"; then
  echo "example: beacon-report: expected 5 readings, frame 7's bad-check at byte 9 and one warning:" >&2
  echo "$report" >&2
  exit 1
fi
echo "example: beacon-report: 5 readings, frame 7 bad-check, verdict WARNING"
