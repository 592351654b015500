import Foundation
import Testing

/// `emulate falconeye` against two Python `websockets` connections for one
/// deviceId, playing the `overlap-close-old` recording's client: each
/// message's answer (or silence, for an accepted camera frame) must be
/// what the real Aerie server's log says it did, in its order, with its
/// sessions made and reused.
@Suite(
  .enabled(if: DeviceTruth.isPresent && Live.hasPythonWebsockets, "needs ../shared and python3 websockets"),
  .serialized)
struct EmulateAerieOverlapTests {
  /// The recording's client: a authenticates and streams; b opens with the
  /// same deviceId; … (device-truth/falconeye/README.md). Prints one
  /// outcome per line as the server's log names them.
  static let client = """
    import asyncio, base64, json, sys, time
    from websockets.asyncio.client import connect
    port, device = sys.argv[1], sys.argv[2]
    out = []
    def envelope(kind, inner):
        return json.dumps({"type": kind, "timestamp": time.time(),
                           "payload": base64.b64encode(json.dumps(inner).encode()).decode()})
    def inner(reply):
        return json.loads(base64.b64decode(json.loads(reply)["payload"]))
    async def answer(ws, wait):
        try:
            return await asyncio.wait_for(ws.recv(), wait)
        except asyncio.TimeoutError:
            return None
    async def frame(ws, n):
        await ws.send(envelope("cameraFrame", {"frameId": f"f-{n:04d}", "timestamp": time.time(),
            "imageData": base64.b64encode(b"\\xff\\xd8" + bytes(400) + b"\\xff\\xd9").decode(),
            "devicePose": [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]}))
        reply = await answer(ws, 0.25)
        if reply is None:
            out.append("frame_accepted")
        else:
            body = inner(reply)
            out.append("error_report" if json.loads(reply)["type"] == "authResponse" and not body["success"]
                       else "unexpected " + reply)
    async def heartbeat(ws):
        await ws.send(envelope("heartbeat", {}))
        reply = await answer(ws, 2)
        out.append("pong" if reply and inner(reply).get("pong") is True else f"no pong: {reply}")
    async def auth(ws):
        await ws.send(envelope("authRequest", {"deviceId": device, "token": "QUJDREVGR0hJSktMTU5PUFFSU1RVVg==",
            "deviceInfo": {"model": "iPhone 15 Pro", "osVersion": "iOS 18.1", "hasLiDAR": True}}))
        reply = await answer(ws, 2)
        body = inner(reply) if reply else {}
        out.append(f"authenticated {body.get('sessionId')}" if body.get("success") else f"auth failed: {reply}")
    async def opened(url):
        ws = await connect(url)
        out.append("opened")
        await asyncio.sleep(0.2)   # past the server's auth race
        return ws
    async def main():
        url = f"ws://127.0.0.1:{port}/ws/connect/{device}"
        a = await opened(url)
        await auth(a)
        for n in (1, 2, 3): await frame(a, n)
        await heartbeat(a)
        b = await opened(url)
        for n in (4, 5): await frame(a, n)
        await auth(b)
        for n in (6, 7): await frame(a, n)
        for n in (8, 9): await frame(b, n)
        await a.close()
        out.append("closed")
        await asyncio.sleep(0.2)
        for n in (10, 11, 12): await frame(b, n)
        await heartbeat(b)
        await auth(b)
        for n in (13, 14): await frame(b, n)
        await b.close()
        out.append("closed")
    asyncio.run(main())
    print("\\n".join(out))
    """

  @Test(arguments: [false, true])
  func twoConnectionsForOneDeviceAreAnsweredAsTheServerLogSays(aerieBugs: Bool) throws {
    let logged = try AerieServerLog.outcomes(DeviceTruth.path("falconeye/overlap-close-old.server.log"))
    let (server, port) = try Live.startListener { port in
      ["emulate", "falconeye", "--listen", "ws:127.0.0.1:\(port)", "--format", "ndjson", "--duration", "60s"]
        + (aerieBugs ? ["--aerie-bugs"] : [])
    }
    let client = try Live.python(
      Self.client, [String(port), "3C9E7A51-2B44-4D0E-9F6A-0A1B2C3D4E5F"], timeout: 60)
    server.signal(SIGINT)
    _ = server.finish()
    #expect(client.status == 0, "\(client.stderr)")
    let got = client.text.split(separator: "\n").map(String.init)
    #expect(
      got.map { $0.split(separator: " ").first.map(String.init) ?? "" } == logged.map(\.event), "\(got)")

    // Sessions: the first made, reused by b's authRequest, a new one after a's close.
    let sessions = got.filter { $0.hasPrefix("authenticated ") }.map { $0.dropFirst("authenticated ".count) }
    let reused = logged.filter { $0.event == "authenticated" }.map(\.reused)
    #expect(sessions.count == reused.count)
    for index in sessions.indices.dropFirst() {
      #expect((sessions[index] == sessions[index - 1]) == reused[index], "session \(index): \(sessions)")
    }
    // The server's timeline names each event's connection; the answers went to the one that asked.
    let events = server.jsonLines.filter { $0["event"] is String }
    #expect(Set(events.compactMap { $0["flow"] as? Int }) == [1, 2])
    #expect(events.allSatisfy { $0["mismatch"] == nil })
  }
}
