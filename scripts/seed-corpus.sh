#!/usr/bin/env bash
# Writes seed inputs for one codec into a directory: one crafted frame per
# message kind, plus the payloads of Captures/ that tshark extracts.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
codec="$1"
out="$2"
mkdir -p "$out"
bin="$root/.build/release/pktbench"
[ -x "$bin" ] || bin="$root/.build/debug/pktbench"
[ -x "$bin" ] || swift build --package-path "$root" --product pktbench >&2
case "$codec" in
  legctrl)
    "$bin" craft arm >"$out/arm.bin"; "$bin" craft disarm >"$out/disarm.bin"; "$bin" craft ping >"$out/ping.bin"
    "$bin" craft servo --us 1500 >"$out/servo.bin"
    "$bin" craft telemetry --state fault --error deadman-timeout --age-ms 200 >"$out/telemetry.bin" ;;
  rallie)
    "$bin" craft rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start >"$out/command-xor.bin"
    "$bin" craft rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start --checksum modbus16lo >"$out/command-modbus.bin"
    "$bin" craft rallie-response --code accepted >"$out/response.bin" ;;
  rider)
    "$bin" craft drive --left 50 --right -37.5 >"$out/drive.bin"
    "$bin" craft move --command move --speed 40 --direction -10 >"$out/move.bin" 2>/dev/null || true
    printf '50,-50,0' >"$out/legacy.bin" ;;
  falconeye)
    "$bin" craft auth --device-id D --secret S >"$out/auth.bin" 2>/dev/null || true
    "$bin" craft heartbeat >"$out/heartbeat.bin" 2>/dev/null || true
    "$bin" craft auth-response --session-id abc >"$out/auth-response.bin" 2>/dev/null || true ;;
esac
if [ "$codec" = filter ]; then
  # The README's display filters, each a seed.
  n=0
  while IFS= read -r filter; do
    n=$((n + 1))
    printf '%s' "$filter" >"$out/filter-$n.txt"
  done <<'FILTERS'
legctrl.state == "FAULT" or rider.left > 90
rallie and not rallie.code == "accepted"
falconeye.payload.frameId matches "^f-00[0-4]"
legctrl.header.msg_type == 0x03 && legctrl.pulse_us in {500..999, 2001..2500}
att.error-response or ble.disconnected
error or diagnostics.severity == "warning"
src == "10.0.0.2:50000"
rider.left != rider.right
falconeye.payload.frameId matches r"^(?<id>f-\d+)$" || !(frame < 10)
FILTERS
  exit 0
fi
if [ "$codec" = pcap ]; then
  for capture in "$root"/Captures/*.pcap "$root"/Captures/*.pcapng; do
    [ -f "$capture" ] && [ "$(stat -c %s "$capture")" -lt 65536 ] && cp "$capture" "$out/"
  done
  exit 0
fi
if [ "$codec" = hci ]; then
  # flags, then length-prefixed H4 records: LE Connection Complete, and an ATT
  # Write Command carrying LegCtrl SET_SERVO_CH0 1500 (the HCIFuzzTarget seed).
  printf '\x00\x16\x04\x3e\x13\x01\x00\x40\x00\x00\x00\x3c\x71\x5e\xc4\x0a\x24\x18\x00\x00\x00\xf4\x01\x00\x12\x02\x40\x00\x0d\x00\x09\x00\x04\x00\x52\x12\x00\x01\x03\x02\x00\xdc\x05' >"$out/servo-write.bin"
  exit 0
fi
if [ "$codec" = pklg ]; then
  # A note, LE Connection Complete and an ATT Write Command carrying LegCtrl
  # SET_SERVO_CH0 1500, big-endian as PacketLogger on a Mac writes them.
  printf '\x00\x00\x00\x0e\x6b\x02\x68\xc0\x00\x00\x00\x00\xfc\x6e\x6f\x74\x65\x00\x00\x00\x00\x1e\x6b\x02\x68\xc0\x00\x00\x0b\xb8\x01\x3e\x13\x01\x00\x40\x00\x00\x00\x3c\x71\x5e\xc4\x0a\x24\x18\x00\x00\x00\xf4\x01\x00\x00\x00\x00\x1a\x6b\x02\x68\xc0\x00\x00\x0f\xa0\x02\x40\x00\x0d\x00\x09\x00\x04\x00\x52\x12\x00\x01\x03\x02\x00\xdc\x05' >"$out/servo-write-be.pklg"
  # The shipped btsnoop sessions as PacketLogger files in both byte orders
  # (H4 type to record type, btsnoop's 0 AD microseconds to Unix time).
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$out" "$root"/Captures/ble/*.btsnoop <<'PY'
import os, struct, sys
for path in sys.argv[2:]:
    data, at, records = open(path, "rb").read(), 16, []
    while at + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack(">IIIIq", data[at:at + 24])
        packet, received = data[at + 24:at + 24 + included], flags & 1
        kind = {1: 0, 4: 1, 2: 3 if received else 2, 3: 9 if received else 8}.get(packet[0]) if packet else None
        if kind is not None:
            micros = stamp - 0x00DCDDB30F2F8000
            records.append((micros // 1000000, micros % 1000000, bytes([kind]) + packet[1:]))
        at += 24 + included
    for order, name in ((">", "be"), ("<", "le")):
        out = b"".join(struct.pack(order + "III", 8 + len(r), s, u) + r for s, u, r in records)
        base = os.path.basename(path).rsplit(".", 1)[0]
        open(os.path.join(sys.argv[1], f"{base}-{name}.pklg"), "wb").write(out[:65536])
PY
  fi
  exit 0
fi
if [ "$codec" = websocket ]; then
  printf '\x0b\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58\x81\x05Hello' >"$out/hello.bin"
  exit 0
fi
if command -v tshark >/dev/null 2>&1; then
  n=0
  for capture in "$root"/Captures/*.pcap "$root"/Captures/*.pcapng; do
    [ -f "$capture" ] || continue
    tshark -r "$capture" -T fields -e udp.payload -Y udp 2>/dev/null | head -200 | while read -r hex; do
      [ -n "$hex" ] || continue
      n=$((n + 1))
      echo "$hex" | xxd -r -p >"$out/capture-$(basename "$capture")-$n.bin"
    done
  done
fi
