#!/usr/bin/env bash
# CI fuzzing, bounded: the pktbench fuzz runner over every codec and parser
# with a fresh random seed (printed, so a failure can be replayed), then
# each libFuzzer harness for a short time. Any failure fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
runner_seconds="${FUZZ_SECONDS:-60}"
libfuzzer_seconds="${LIBFUZZER_SECONDS:-20}"
seed="${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
# One worker per core (seeds seed, seed+1, ...): twice the inputs on two cores.
cores="$(nproc)"
jobs="${FUZZ_JOBS:-$((cores < 64 ? cores : 64))}"
echo "fuzz-ci: pktbench fuzz, seed $seed, ${runner_seconds}s, $jobs jobs"
.build/debug/pktbench fuzz --time "${runner_seconds}s" --seed "$seed" --jobs "$jobs" --crashes fuzz-crashes/runner
# The spec codecs against the built-ins they describe: every input to both,
# each compare target for the runner's time (the two share the run).
echo "fuzz-ci: Specs/legctrl.ksy and Specs/rallie.ksy against the built-ins, seed $seed, $((2 * runner_seconds))s"
.build/debug/pktbench fuzz --spec Specs/legctrl.ksy --spec Specs/rallie.ksy \
  --codec compare-legctrl --codec compare-rallie --time "$((2 * runner_seconds))s" --seed "$seed" --jobs "$jobs" \
  --crashes fuzz-crashes/spec
for codec in rider legctrl rallie falconeye pcap websocket hci pklg filter; do
  echo "fuzz-ci: libFuzzer $codec, ${libfuzzer_seconds}s"
  scripts/libfuzzer.sh "$codec" "$libfuzzer_seconds"
done
