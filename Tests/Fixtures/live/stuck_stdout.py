#!/usr/bin/env python3
"""`pktbench listen ws:` whose stdout is a pipe nobody reads (issue 34).

  stuck_stdout.py PKTBENCH PORT

Starts the listener with its stdout a pipe this script never reads, sends
20,000 Rider messages over one WebSocket connection (their lines fill the
pipe, and the listener blocks writing them), then sends SIGTERM and waits
up to 30 s. Prints one JSON line: the exit status (or "running"), the
seconds it took, and the listener's stderr.
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ws_hostile as hostile  # noqa: E402

binary, port = sys.argv[1], int(sys.argv[2])
server = subprocess.Popen([binary, "listen", "ws:127.0.0.1:%d" % port], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    try:
        s = hostile.connect(port, timeout=2)
        break
    except OSError:
        time.sleep(0.1)
hostile.upgrade(s)
s.settimeout(2)
message = hostile.masked(0x81, b'{"left":50,"right":-50,"timestamp":1.5}')
sent = 0
try:
    for _ in range(20000):
        s.sendall(message)
        sent += 1
except OSError:
    pass  # the listener stopped reading: it is blocked on its stdout
time.sleep(1)
start = time.monotonic()
server.send_signal(signal.SIGTERM)
try:
    status = server.wait(timeout=30)
except subprocess.TimeoutExpired:
    status = "running"
    server.kill()
    server.wait()
print(json.dumps({"sent": sent, "exit": status, "seconds": round(time.monotonic() - start, 1),
                  "stderr": server.stderr.read().decode()}))
