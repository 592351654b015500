import PacketCapture
import PacketKit
import Testing

/// A whole connection as Python's websockets 17.4 made it, recorded by a
/// loopback TCP proxy between `websockets.connect` and `websockets.serve`
/// (an echo handler):
///
///     async with websockets.connect("ws://127.0.0.1:8766/ws/connect/HawkSight%20Pro-01") as ws:
///         await ws.send('{"type":"heartbeat","timestamp":1700000000,"payload":"e30="}')
///         print(await ws.recv())
///         await ws.send('{"type":"heartbeat","timestamp":1700000001,"payload":"e30="}')
///         print(await ws.recv())
///     print(c2s.hex()); print(s2c.hex())   # bytes the proxy relayed each way
///
/// Both peers negotiated permessage-deflate by default; the client's frames
/// are masked with random keys; the client closes with 1000, the server echoes.
enum PythonWebSocketsSession {
  static let request =
    "GET /ws/connect/HawkSight%20Pro-01 HTTP/1.1\r\nHost: 127.0.0.1:8766\r\nUpgrade: websocket\r\n"
    + "Connection: Upgrade\r\nSec-WebSocket-Key: PCkFMfe43BCDqqCrBR+EQA==\r\nSec-WebSocket-Version: 13\r\n"
    + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
    + "User-Agent: Python/3.11 websockets/17.4\r\n\r\n"
  static let clientFrames =
    "c1b869eda0b8c3bb8a1145a5f50a3b27e8f545c7e9f224c1f16a38c7697424c08ef1a5c0f00a5bd997386bf0053aad273c"
    + "44adf9005a3d8ea3e3ccb7a0b8c1896c31c0b2c617961d4d979eb26c888261f1e5916219"
  static let response =
    "HTTP/1.1 101 Switching Protocols\r\nDate: Sun, 22 Nov 2026 02:46:11 GMT\r\nUpgrade: websocket\r\n"
    + "Connection: Upgrade\r\nSec-WebSocket-Accept: R4C2s/X/gaAQCNs7h2r6dBPVoZA=\r\n"
    + "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=12; client_max_window_bits=12\r\n"
    + "Server: Python/3.11 websockets/17.4\r\n\r\n"
  static let serverFrames =
    "c138aa562aa92c4855b252ca484d2c2a494a4d2c51d2512ac9cc4d2d2e49cc2d50b232343780021da582c4ca9cfcc414a0"
    + "e25463035ba55a0000c109aa2656af21a65e0000880203e8"
  static let texts = [
    #"{"type":"heartbeat","timestamp":1700000000,"payload":"e30="}"#,
    #"{"type":"heartbeat","timestamp":1700000001,"payload":"e30="}"#,
  ]

  static func clientStream() throws -> [UInt8] { Array(request.utf8) + (try Hex.parse(clientFrames)) }
  static func serverStream() throws -> [UInt8] { Array(response.utf8) + (try Hex.parse(serverFrames)) }
}

@Suite struct WebSocketHandshakeTests {
  @Test func pythonWebSocketsSessionDecodes() throws {
    var recorder = WebSocketRecorder()
    recorder.feed(try PythonWebSocketsSession.clientStream(), .clientToServer, frame: 4, time: 100)
    // The client's frames wait for the server's answer.
    #expect(recorder.messages.isEmpty)
    recorder.feed(try PythonWebSocketsSession.serverStream(), .serverToClient, frame: 6, time: 101)
    #expect(recorder.errors.isEmpty, "\(recorder.errors)")

    let handshake = try #require(recorder.stream.handshake)
    #expect(handshake.path == "/ws/connect/HawkSight%20Pro-01")
    #expect(WebSocketTarget.segment(after: "/ws/connect/", in: handshake.path) == "HawkSight Pro-01")
    #expect(handshake.host == "127.0.0.1:8766")
    #expect(handshake.requestedExtensions == "permessage-deflate; client_max_window_bits")
    #expect(handshake.subprotocol == nil)
    #expect(handshake.key == "PCkFMfe43BCDqqCrBR+EQA==")
    #expect(handshake.userAgent == "Python/3.11 websockets/17.4")
    #expect(recorder.events.first == .handshakeRequest(handshake, frame: 4, time: 100))
    #expect(
      recorder.events.dropFirst().first
        == .handshakeResponse(
          status: 101, extensions: "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12",
          frame: 6, time: 101))
    #expect(recorder.stream.isUpgraded)
    #expect(recorder.stream.responseStatus == 101)
    #expect(
      recorder.stream.deflate
        == WebSocketDeflateParameters(serverMaxWindowBits: 12, clientMaxWindowBits: 12))

    let client = recorder.messages.filter { $0.direction == .clientToServer }
    let server = recorder.messages.filter { $0.direction == .serverToClient }
    #expect(client.map(\.text) == PythonWebSocketsSession.texts)
    #expect(server.map(\.text) == PythonWebSocketsSession.texts)
    #expect(recorder.messages.allSatisfy { $0.wasCompressed && $0.isText && $0.diagnostics.isEmpty })
    #expect(client.allSatisfy { $0.firstFrame == 4 })
    #expect(server.allSatisfy { $0.firstFrame == 6 })
    #expect(recorder.controls == [.close(code: 1000, reason: ""), .close(code: 1000, reason: "")])
  }

  @Test func serverSideFedFirstGivesTheSameMessages() throws {
    var recorder = WebSocketRecorder()
    recorder.feed(try PythonWebSocketsSession.serverStream(), .serverToClient)
    recorder.feed(try PythonWebSocketsSession.clientStream(), .clientToServer)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.count == 4)
    #expect(
      WebSocketTarget.segment(after: "/ws/connect/", in: recorder.stream.handshake?.path ?? "")
        == "HawkSight Pro-01")
  }

  @Test func acceptValueOfRFC6455() throws {
    // RFC 6455 §1.3's key and accept pass; any other accept is reported.
    let recorder = try WebSocketRecorder.upgraded()
    #expect(recorder.stream.handshake?.key == WebSocketSamples.key)
    var tampered = WebSocketRecorder()
    tampered.feed(WebSocketSamples.handshake(offer: nil, accept: nil).request, .clientToServer)
    let response =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"
    tampered.feed(Array(response.utf8), .serverToClient, frame: 9)
    #expect(tampered.errorCodes == ["bad-accept"])
    #expect(tampered.stream.isUpgraded)
  }

  @Test func rejectedUpgradeDecodesNoFrames() throws {
    var recorder = WebSocketRecorder()
    let (request, response) = WebSocketSamples.handshake(offer: nil, accept: nil, status: "403 Forbidden")
    recorder.feed(request, .clientToServer)
    recorder.feed(response, .serverToClient)
    try recorder.feed(hex: "81 05 48 65 6c 6c 6f", .serverToClient)
    #expect(recorder.events.count == 2)
    #expect(recorder.events.last == .handshakeResponse(status: 403, extensions: nil, frame: 1, time: 0))
    #expect(!recorder.stream.isUpgraded)
    #expect(recorder.messages.isEmpty)
  }

  @Test func handshakeSplitAcrossChunksAtEveryPoint() throws {
    let request = Array(PythonWebSocketsSession.request.utf8)
    for cut in 1..<request.count {
      var recorder = WebSocketRecorder()
      recorder.feed(Array(request[..<cut]), .clientToServer, frame: 1)
      recorder.feed(Array(request[cut...]), .clientToServer, frame: 2)
      #expect(
        WebSocketTarget.segment(after: "/ws/connect/", in: recorder.stream.handshake?.path ?? "")
          == "HawkSight Pro-01", "cut at \(cut)")
      #expect(recorder.errors.isEmpty)
    }
  }

  @Test func deviceIdFromPath() throws {
    let cases: [(String, String?)] = [
      ("/ws/connect/abc", "abc"),
      ("/ws/connect/a%2Fb%20c?token=1", "a/b c"),
      ("ws://aerie:8000/ws/connect/%E2%9C%93", "✓"),
      ("/api/ws/connect/x/y", "x"),
      ("/ws/connect/", nil),
      ("/ws/other/abc", nil),
      ("/ws/connect/100%", "100%"),
    ]
    for (path, expected) in cases {
      var recorder = WebSocketRecorder()
      let request =
        "GET \(path) HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: \(WebSocketSamples.key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
      recorder.feed(Array(request.utf8), .clientToServer)
      #expect(recorder.stream.handshake?.path == path)
      #expect(
        WebSocketTarget.segment(after: "/ws/connect/", in: recorder.stream.handshake?.path ?? "") == expected,
        "\(path)")
    }
  }

  @Test func looksLikeUpgradeRequest() {
    func check(_ text: String) -> Bool {
      Array(text.utf8).withUnsafeBytes { WebSocketStream.looksLikeUpgradeRequest($0) }
    }
    #expect(check(PythonWebSocketsSession.request))
    #expect(check("GET /x HTTP/1.1\r\nhost: a\r\nUPGRADE: WebSocket\r\n"))
    #expect(!check("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
    #expect(!check("POST /ws HTTP/1.1\r\nUpgrade: websocket\r\n"))
    #expect(!check("GET /websocket HTTP/1.1\r\nHost: a\r\n"))
    #expect(!check("GE"))
    #expect(!check(""))
  }

  @Test func extensionParametersAreRead() throws {
    let recorder = try WebSocketRecorder.upgraded(
      extensions:
        "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
        + "server_max_window_bits=10; client_max_window_bits=\"9\"")
    #expect(
      recorder.stream.deflate
        == WebSocketDeflateParameters(
          serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10,
          clientMaxWindowBits: 9))
  }

  @Test func assumeUpgradedDecodesWithoutAHandshake() throws {
    var recorder = WebSocketRecorder()
    recorder.stream.assumeUpgraded(deflate: true)
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    try recorder.feed(hex: "81 85 37 fa 21 3d 7f 9f 4d 51 58", .clientToServer)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello"])
    #expect(recorder.stream.isUpgraded)
    #expect(recorder.stream.handshake == nil)
  }
}
