#!/usr/bin/env bash
# Coverage-guided fuzzing of one codec with libFuzzer and AddressSanitizer.
#   scripts/libfuzzer.sh rallie 60        # fuzz the Rallie codec for 60 s
# Seeds come from crafted frames of every message kind and from the UDP and
# WebSocket payloads of Captures/ (via tshark, when installed). Crashes are
# written to fuzz-crashes/libfuzzer-<codec>/ and a reproduce line is printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
codec="${1:?usage: scripts/libfuzzer.sh rider|legctrl|rallie|falconeye|pcap|websocket|hci|pklg|filter SECONDS}"
seconds="${2:-60}"
case "$codec" in
  rider) product=FuzzRider ;;
  legctrl) product=FuzzLegCtrl ;;
  rallie) product=FuzzRallie ;;
  falconeye) product=FuzzFalconEye ;;
  pcap) product=FuzzPcap ;;
  websocket) product=FuzzWebSocket ;;
  hci) product=FuzzHCI ;;
  pklg) product=FuzzPacketLogger ;;
  filter) product=FuzzFilter ;;
  *) echo "libfuzzer.sh: unknown target '$codec'; allowed: rider, legctrl, rallie, falconeye, pcap, websocket, hci, pklg, filter" >&2; exit 2 ;;
esac
"$root/scripts/bootstrap.sh"
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer reports Swift's lazily created globals (codec schemas) as
# leaks at exit; per-input growth is bounded by -rss_limit_mb instead.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# --sanitize=fuzzer (not -Xswiftc -sanitize=fuzzer, which links a binary that never fuzzes).
# It instruments C code for coverage but not Swift modules: without
# -sanitize-coverage the codecs gave libFuzzer no coverage at all, and it
# fuzzed blind from a one-byte corpus.
swift build -c release --package-path "$root/Fuzz" --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --product "$product" >&2
binary="$root/Fuzz/.build/release/$product"

corpus="$root/fuzz-corpus/$codec"
crashes="$root/fuzz-crashes/libfuzzer-$codec"
mkdir -p "$corpus" "$crashes"
"$root/scripts/seed-corpus.sh" "$codec" "$corpus" || echo "libfuzzer.sh: seeds incomplete, fuzzing from what there is" >&2

"$binary" "$corpus" -dict="$root/Fuzz/dictionaries/$codec.dict" -max_total_time="$seconds" \
  -artifact_prefix="$crashes/" -max_len=65536 -detect_leaks=0 -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
  | tee "$root/fuzz-crashes/libfuzzer-$codec.log" | grep -E '^(#[0-9]+ *(DONE|INITED)|stat::|==|SUMMARY|pktbench|artifact)' || true
status=${PIPESTATUS[0]}
# A harness whose Swift code is not instrumented reports one edge or none.
edges=$(grep -oE 'cov: [0-9]+' "$root/fuzz-crashes/libfuzzer-$codec.log" | tail -1 | grep -oE '[0-9]+' || echo 0)
if [ "${edges:-0}" -lt 20 ]; then
  echo "libfuzzer.sh: $codec gave libFuzzer $edges coverage edges: its Swift code is not instrumented" \
    "(a build from before -sanitize-coverage? rm -rf Fuzz/.build)" >&2
  exit 1
fi
if ls "$crashes"/crash-* >/dev/null 2>&1; then
  for crash in "$crashes"/crash-*; do
    echo "libfuzzer.sh: crash input $crash; reproduce: $binary $crash" >&2
  done
  exit 1
fi
exit "$status"
