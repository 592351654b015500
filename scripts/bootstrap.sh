#!/usr/bin/env bash
# Installs what pktbench needs on a fresh Debian machine with the Swift
# toolchain: libpcap and zlib headers (build); with --test-tools
# tcpdump/tshark/jq (tests compare against them) and Python's websockets and
# duckdb; with --bench-tools valgrind. Quiet and quick when all is present.
set -euo pipefail

need=()
pkg-config --exists libpcap 2>/dev/null || need+=(libpcap-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
if [ "${1:-}" = "--test-tools" ]; then
  command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
  command -v tshark >/dev/null 2>&1 || need+=(tshark)
  command -v nc >/dev/null 2>&1 || need+=(netcat-openbsd)
  # The display filter's tests check -Y against the same selection made by jq.
  command -v jq >/dev/null 2>&1 || need+=(jq)
  # The corpus test reads each run's own peak memory from GNU time.
  [ -x /usr/bin/time ] || need+=(time)
  # The wss tests make their certificates with the openssl command.
  command -v openssl >/dev/null 2>&1 || need+=(openssl)
fi

# The speed guard counts instructions with callgrind on a copy without DWARF.
if [ "${1:-}" = "--bench-tools" ]; then
  command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
  command -v objcopy >/dev/null 2>&1 || need+=(binutils)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The live tests drive `listen ws` with Python's own WebSocket client.
if [ "${1:-}" = "--test-tools" ] && command -v python3 >/dev/null 2>&1; then
  if ! python3 -c "import websockets.asyncio.client" >/dev/null 2>&1; then
    echo "bootstrap: installing python3 websockets" >&2
    python3 -m pip install --quiet "websockets>=13" >/dev/null 2>&1 \
      || python3 -m pip install --quiet --break-system-packages "websockets>=13" >/dev/null \
      || echo "bootstrap: could not install websockets; its live tests will be skipped" >&2
  fi
  # The fleet example's test loads pktbench's ndjson and csv into DuckDB.
  if ! python3 -c "import duckdb" >/dev/null 2>&1; then
    echo "bootstrap: installing python3 duckdb" >&2
    python3 -m pip install --quiet duckdb >/dev/null 2>&1 \
      || python3 -m pip install --quiet --break-system-packages duckdb >/dev/null \
      || echo "bootstrap: could not install duckdb; its test will be skipped" >&2
  fi
fi
