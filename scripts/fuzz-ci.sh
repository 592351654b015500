#!/usr/bin/env bash
# CI fuzzing, bounded: the pktbench fuzz runner over every codec and parser
# with a fresh random seed (printed, so a failure can be replayed), the
# spec codecs against the built-ins, then each libFuzzer harness for
# LIBFUZZER_SECONDS (none at 0). Any failure fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
# Sized so CI stays under 15 minutes on two cores; run longer by hand.
runner_seconds="${FUZZ_SECONDS:-30}"
compare_seconds="${COMPARE_SECONDS:-60}"
libfuzzer_seconds="${LIBFUZZER_SECONDS:-10}"
seed="${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
# One worker per core (seeds seed, seed+1, ...): twice the inputs on two cores.
cores="$(nproc)"
jobs="${FUZZ_JOBS:-$((cores < 64 ? cores : 64))}"
echo "fuzz-ci: pktbench fuzz, seed $seed, ${runner_seconds}s, $jobs jobs"
.build/release/pktbench fuzz --time "${runner_seconds}s" --seed "$seed" --jobs "$jobs" --crashes fuzz-crashes/runner
# The spec codecs against the built-ins they describe: every input to both,
# for its own time (the two compare targets share the run).
echo "fuzz-ci: Specs/legctrl.ksy and Specs/rallie.ksy against the built-ins, seed $seed, ${compare_seconds}s"
.build/release/pktbench fuzz --spec Specs/legctrl.ksy --spec Specs/rallie.ksy \
  --codec compare-legctrl --codec compare-rallie --time "${compare_seconds}s" --seed "$seed" --jobs "$jobs" \
  --crashes fuzz-crashes/spec
if [ "$libfuzzer_seconds" -le 0 ]; then
  echo "fuzz-ci: libFuzzer harnesses skipped (no time left in the budget; scripts/libfuzzer.sh runs one)"
  exit 0
fi
for codec in rider legctrl rallie falconeye pcap websocket hci pklg filter; do
  echo "fuzz-ci: libFuzzer $codec, ${libfuzzer_seconds}s"
  scripts/libfuzzer.sh "$codec" "$libfuzzer_seconds"
done
