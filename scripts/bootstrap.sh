#!/usr/bin/env bash
# Installs what pktbench needs on a fresh Debian machine with the Swift
# toolchain: libpcap and zlib headers (build), and tcpdump/tshark (tests
# compare against them). Quiet and quick when everything is present.
set -euo pipefail

need=()
pkg-config --exists libpcap 2>/dev/null || need+=(libpcap-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
if [ "${1:-}" = "--test-tools" ]; then
  command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
  command -v tshark >/dev/null 2>&1 || need+=(tshark)
  command -v nc >/dev/null 2>&1 || need+=(netcat-openbsd)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
