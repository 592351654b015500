#!/usr/bin/env python3
"""rallie-app.pcap: the Rallie app's own frames and its parser's verdicts.

The commands are the frames the app's encoder wrote (device-truth
rallie/app-encoder.jsonl), one every 3.0 s as the app sends them. After
each of the first commands the machine's side sends one frame of
device-truth rallie/app-parser.jsonl, in order, 35 ms later. Then a
command goes unanswered, a command with a damaged check goes unanswered
(the machine drops it), and a last one is answered `accepted`.

rallie-app.expected.json lists, per frame, what the app or the machine did
with it — for responses the app's own recorded outcome (accepted with the
code stored, or dropped and why) — and the findings `pktbench analyze`
must report, all from how the traffic was made, never from pktbench's
output.

Run: python3 Tests/Fixtures/analyze/make_rallie_app_capture.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_analyze_captures as fixtures  # noqa: E402
from make_analyze_captures import APP, DEVICE, START, Capture, wire  # noqa: E402

TRUTH = os.path.abspath(os.path.join(HERE, "..", "..", "..", "..", "shared", "device-truth", "rallie"))
APP_PORT, MACHINE_PORT = 40027, 9100
CODES = {0: "rejected", 1: "accepted", 2: "completed"}


def lines(name):
    with open(os.path.join(TRUTH, name)) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main():
    encoder = [bytes.fromhex(line["frame"]) for line in lines("app-encoder.jsonl")]
    parser = lines("app-parser.jsonl")
    assert len(encoder) > len(parser) + 1, "enough app frames for every response and two more"

    cap = Capture("rallie-app")
    t0 = START + 500
    frames = []  # what each record is, in capture order
    last_code = None

    def command(index, data, expect):
        frame = cap.udp(t0 + 3.0 * index, APP, APP_PORT, DEVICE, MACHINE_PORT, data)
        frames.append(dict(frame=frame, side="machine", event=expect["event"], **{
            k: v for k, v in expect.items() if k != "event"}))
        return frame

    for index, line in enumerate(parser):
        sent = command(index, encoder[index], dict(event="command_accepted"))
        data = bytes.fromhex(line["frame"])
        got = cap.udp(t0 + 3.0 * index + 0.035, DEVICE, MACHINE_PORT, APP, APP_PORT, data)
        entry = dict(frame=got, side="app", answers=sent)
        if line["app"] == "accepted":
            last_code = CODES.get(line["code"], "unknown(%d)" % line["code"])
            entry.update(event="response_accepted", last_code=last_code)
        else:
            entry.update(event="response_dropped", why=line["why"], last_code=last_code)
        frames.append(entry)

        # What the rules say about it (docs/protocols.md §3, §5 and the app's outcome).
        xor_ok = len(data) == 5 and wire.xor_check(data[:4]) == data[4]
        modbus_ok = len(data) == 5 and wire.modbus16lo_check(data[:4]) == data[4]
        is_response = len(data) == 5 and data[:2] == b"\x5a\xa5"
        if line["app"] == "dropped" and line["why"] == "check" and not modbus_ok:
            cap.expect("rallie.check-failure", "error", got, side="machine")
        elif line["app"] == "dropped" and line["why"] == "check":
            cap.expect("rallie.check-variant-mismatch", "warning", got, frames=[sent, got])
        elif line["app"] == "dropped":
            cap.expect("rallie.response-dropped", "warning", got, frames=[sent, got])
        # The machine answered rejected (code 0) with a check the codec reads.
        if is_response and (xor_ok or modbus_ok) and data[3] == 0:
            cap.expect("rallie.rejected", "warning", sent, frames=[sent, got])

    # The first command is taken only by the v0.3 default until the machine
    # answers in XOR; every later XOR command is taken for sure.
    frames[0]["certain"] = False
    for entry in frames[1:]:
        if entry["side"] == "machine":
            entry["certain"] = True

    index = len(parser)
    unanswered = command(index, encoder[index], dict(event="command_accepted", certain=True))
    cap.expect("rallie.no-response", "warning", unanswered)

    damaged = bytearray(encoder[index + 1])
    damaged[-1] ^= 0x5A
    assert damaged[-1] not in (wire.xor_check(damaged[:-1]), wire.modbus16lo_check(damaged[:-1]))
    bad = command(index + 1, bytes(damaged), dict(event="command_refused", certain=True, why="check"))
    cap.expect("rallie.check-failure", "error", bad, side="app")

    last = command(index + 2, encoder[index + 1], dict(event="command_accepted", certain=True))
    got = cap.udp(t0 + 3.0 * (index + 2) + 0.035, DEVICE, MACHINE_PORT, APP, APP_PORT, wire.rallie_response(1))
    frames.append(dict(frame=got, side="app", answers=last, event="response_accepted", last_code="accepted"))

    cap.write()
    expected = {
        "made_by": "Tests/Fixtures/analyze/make_rallie_app_capture.py",
        "capture": "rallie-app.pcap",
        "records": len(cap.records),
        "frames": frames,
        "findings": cap.findings,
    }
    with open(os.path.join(HERE, "rallie-app.expected.json"), "w") as out:
        json.dump(expected, out, indent=1)
        out.write("\n")
    print("wrote rallie-app.pcap,", len(cap.records), "records")


if __name__ == "__main__":
    assert fixtures.HERE == HERE
    main()
