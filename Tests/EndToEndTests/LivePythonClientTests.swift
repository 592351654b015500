import Foundation
import Testing

/// Independent clients against `listen`: Python's own UDP socket, and the
/// `websockets` library (which offers permessage-deflate by default).
extension LiveTests {
  @Suite struct PythonClients {
    /// Sends three datagrams over IPv4 and one over IPv6: a Rider command,
    /// garbage, a LegCtrl servo frame, then Rider again.
    static let udpClient = """
      import socket, sys, time
      port = int(sys.argv[1])
      v4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
      v4.sendto(b'{"left": 12.5, "right": -7, "timestamp": 1700000000.25}', ("127.0.0.1", port))
      time.sleep(0.02)
      v4.sendto(b'{"left": 1, "right": ', ("127.0.0.1", port))
      time.sleep(0.02)
      v4.sendto(bytes([0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]), ("127.0.0.1", port))
      time.sleep(0.02)
      v6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
      v6.sendto(b'{"left": -100, "right": 100, "timestamp": 1.0}', ("::1", port))
      """

    @Test(.enabled(if: Live.hasPython, "needs python3"))
    func pythonUDPSocketIntoListen() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:\(port)", "--count", "4", "--format", "ndjson", "--decode-as", "udp:\(port)=rider"]
      }
      let client = try Live.python(Self.udpClient, [String(port)])
      #expect(client.status == 0, "\(client.stderr)")
      #expect(listener.finish() == 0)
      let records = listener.jsonLines
      #expect(records.count == 4)
      guard records.count == 4 else { return }
      #expect(Live.fields(records[0])["left"] as? Double == 12.5)
      #expect(Live.fields(records[0])["right"] as? Double == -7)
      // The truncated JSON is a decode error with a place, and the listener went on.
      let error = records[1]["error"] as? [String: Any]
      #expect(error?["code"] is String)
      #expect(records[1]["codec"] as? String == "rider")
      // --decode-as routes the port to rider: the LegCtrl bytes are an error too, not a crash.
      #expect(records[2]["error"] is [String: Any])
      #expect(Live.fields(records[3])["left"] as? Double == -100)
      #expect((records[3]["src"] as? String)?.hasPrefix("[::1]:") == true)
      #expect((records[0]["src"] as? String)?.hasPrefix("127.0.0.1:") == true)
    }

    /// Authenticates (token computed here with Python's hmac), sends a
    /// heartbeat, then opens a second socket that never authenticates.
    static let websocketClient = """
      import asyncio, base64, hashlib, hmac, json, sys, time
      from websockets.asyncio.client import connect
      from websockets.exceptions import ConnectionClosed
      port = sys.argv[1]
      result = {}
      def envelope(kind, inner):
          return json.dumps({"type": kind, "timestamp": time.time(),
                             "payload": base64.b64encode(json.dumps(inner).encode()).decode()})
      async def main():
          url = f"ws://127.0.0.1:{port}/ws/connect/PY-DEVICE"
          async with connect(url) as ws:
              result["extensions"] = ws.response.headers.get("Sec-WebSocket-Extensions")
              token = base64.b64encode(hmac.new(b"S", f"PY-DEVICE:{time.time()}".encode(),
                                                hashlib.sha256).digest()).decode()
              await ws.send(envelope("authRequest", {"deviceId": "PY-DEVICE", "token": token,
                  "deviceInfo": {"model": "iPhone16,1", "osVersion": "17.5", "hasLiDAR": True}}))
              reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
              result["auth_type"] = reply["type"]
              result["auth"] = json.loads(base64.b64decode(reply["payload"]))
              await ws.send(envelope("heartbeat", {}))
              reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
              result["heartbeat_type"] = reply["type"]
              result["heartbeat"] = json.loads(base64.b64decode(reply["payload"]))
          started = time.monotonic()
          async with connect(f"ws://127.0.0.1:{port}/ws/connect/SILENT") as ws:
              try:
                  await asyncio.wait_for(ws.recv(), 8)
              except ConnectionClosed as closed:
                  result["silent_close_code"] = closed.rcvd.code if closed.rcvd else None
                  result["silent_close_reason"] = closed.rcvd.reason if closed.rcvd else None
          result["silent_seconds"] = time.monotonic() - started
      asyncio.run(main())
      print(json.dumps(result))
      """

    @Test(
      .enabled(if: Live.hasPythonWebsockets, "needs python3 websockets (scripts/bootstrap.sh --test-tools)"))
    func pythonWebsocketsClientAgainstTheEmulatedServer() throws {
      let (listener, port) = try Live.startListener { port in
        [
          "emulate", "falconeye", "--listen", "ws:\(port)", "--auth-timeout", "1s", "--format", "ndjson",
          "--messages", "--duration", "30s",
        ]
      }
      let client = try Live.python(Self.websocketClient, [String(port)], timeout: 40)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(client.status == 0, "\(client.stderr)")
      let line = client.text.split(separator: "\n").last.map(String.init) ?? ""
      let result = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]

      // permessage-deflate was offered (websockets does by default) and declined: no extension header.
      #expect(result["extensions"] is NSNull)
      #expect(result["auth_type"] as? String == "authResponse")
      let auth = result["auth"] as? [String: Any]
      #expect(auth?["success"] as? Bool == true)
      #expect(UUID(uuidString: auth?["sessionId"] as? String ?? "") != nil)
      #expect(result["heartbeat_type"] as? String == "heartbeat")
      #expect((result["heartbeat"] as? [String: Any])?["pong"] as? Bool == true)
      #expect(result["silent_close_code"] as? Int == 1008)
      let seconds = result["silent_seconds"] as? Double ?? 0
      #expect(seconds >= 0.9 && seconds < 6)

      // The listener logged the offer and the refusal, and every message.
      let records = listener.jsonLines
      let handshake = records.first { $0["message"] as? String == "ws.handshake" }
      #expect((handshake.map(Live.fields)?["extensions"] as? String)?.contains("permessage-deflate") == true)
      let accept = records.first { $0["message"] as? String == "ws.accept" }
      #expect((accept.map(Live.fields)?["declined"] as? String)?.contains("permessage-deflate") == true)
      let messages = records.compactMap { $0["message"] as? String }
      #expect(messages.contains("authRequest"))
      #expect(messages.contains("authResponse"))
      #expect(messages.filter { $0 == "heartbeat" }.count == 2)
      let closes = records.filter { $0["message"] as? String == "ws.close" }
      #expect(
        closes.contains {
          Live.fields($0)["code"] as? Int == 1008 && Live.fields($0)["by"] as? String == "server"
        })
      // Between the messages, what the server did.
      let events = records.compactMap { $0["event"] as? String }
      #expect(events.contains("authenticated") && events.contains("pong"), "\(events)")
    }
  }
}

/// `send ws://` against an independent server (Python's websockets, which
/// refuses unmasked client frames with 1002): the upgrade succeeds, every
/// message arrives, the server's ping is answered, the close is 1000.
extension LiveTests {
  @Suite struct PythonServer {
    static let server = """
      import asyncio, json, sys
      from websockets.asyncio.server import serve
      result = {"messages": []}
      async def main():
          done = asyncio.Event()
          async def handler(ws):
              result["path"] = ws.request.path
              try:
                  waiter = await ws.ping(b"pktbench?")
                  await asyncio.wait_for(waiter, 5)
                  result["pong"] = True
              except Exception as error:
                  result["pong"] = repr(error)
              try:
                  async for message in ws:
                      result["messages"].append(json.loads(message)["type"])
              except Exception as error:
                  result["error"] = repr(error)
              result["close_code"] = ws.close_code
              done.set()
          async with serve(handler, "127.0.0.1", 0) as server:
              print(server.sockets[0].getsockname()[1], flush=True)
              await asyncio.wait_for(done.wait(), 20)
      asyncio.run(main())
      print(json.dumps(result), flush=True)
      """

    @Test(
      .enabled(if: Live.hasPythonWebsockets, "needs python3 websockets (scripts/bootstrap.sh --test-tools)"))
    func sendMasksAnswersPingsAndClosesWith1000() throws {
      let python = try #require(Pktbench.which("python3"))
      let server = try LiveProcess(["-c", Self.server], program: python)
      #expect(server.waitForLines(1))
      let port = server.stdout.split(separator: "\n").first.map(String.init) ?? ""
      let sender = try Pktbench.run([
        "send", "ws://127.0.0.1:\(port)/ws/connect/PY", "auth", "--secret", "S", "then", "heartbeat",
        "--count", "3", "--rate", "10hz",
      ])
      #expect(server.finish() == 0, "\(server.stderr)")
      #expect(sender.status == 0, "\(sender.stderr)")
      let line = server.stdout.split(separator: "\n").last.map(String.init) ?? ""
      let result = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
      #expect(result["path"] as? String == "/ws/connect/PY")
      #expect(result["messages"] as? [String] == ["authRequest", "heartbeat", "heartbeat", "heartbeat"])
      #expect(result["pong"] as? Bool == true, "\(result)")
      #expect(result["close_code"] as? Int == 1000)
      #expect(result["error"] == nil)
      #expect(sender.text.contains("ws.ping"))
    }
  }
}
