#!/usr/bin/env bash
# Regenerate every sample capture and its fixture by sending real traffic
# over lo, then check them all with tshark. Needs root (or capture rights
# for tcpdump/dumpcap), tcpdump, dumpcap, editcap, tshark, and
# `pip install websockets pillow`. Ports used on 127.0.0.1: 5005, 9000, 9100,
# 8000 and 40001-40006, 40011-40014 (all must be free).
set -euo pipefail
cd "$(dirname "$0")"
for tool in tcpdump dumpcap editcap tshark python3; do
  command -v "$tool" >/dev/null || { echo "make-all.sh: $tool is not installed" >&2; exit 1; }
done
python3 -c 'import websockets, PIL' 2>/dev/null || {
  echo "make-all.sh: run: pip install websockets pillow" >&2; exit 1; }

python3 wire.py
python3 firmware_truth.py   # both LegCtrl firmware models against the firmware's recordings (skipped if absent)
python3 make_rider.py
python3 make_rider_bad_json.py
python3 make_legctrl.py
python3 make_rallie.py
python3 make_falconeye.py
python3 make_falconeye.py --deflate
python3 make_field_session.py
python3 make_damaged.py   # copies of rider-20hz.pcap and falconeye-ws.pcap
python3 verify.py
python3 ble_make.py   # BLE btsnoop/pcapng in ../ble/ (needs `pip install scapy`), then ble_verify.py
