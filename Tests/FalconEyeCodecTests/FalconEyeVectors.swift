import PacketKit

/// Test vectors. None comes from pktbench's own output: the golden ones were
/// built with Python's json/base64/hmac modules by this script (run with
/// python3; it prints the values pasted below):
//
//   import json, base64, hmac, hashlib
//   def dumps(o): return json.dumps(o, separators=(',', ':'))
//   def env(kind, ts, inner_text):
//       return dumps({"type": kind, "timestamp": ts, "payload": base64.b64encode(inner_text.encode()).decode()})
//   def tok(msg, secret=b"s3cret"):
//       return base64.b64encode(hmac.new(secret, msg.encode(), hashlib.sha256).digest()).decode()
//
//   dev = "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E"
//   print("client token", tok(dev + ":1700000000.5"))
//   print("client token whole", tok("dev-1:1700000000.0"))
//   print("server token", tok(dev + ":1700000000.5:00112233445566778899aabbccddeeff:s3cret"))
//   auth_inner = dumps({"deviceId": dev, "token": tok(dev + ":1700000000.5"),
//                       "deviceInfo": {"model": "iPhone 15 Pro", "osVersion": "iOS 18.1", "hasLiDAR": True}})
//   print("authRequest", env("authRequest", 1700000000.5, auth_inner))
//   resp_inner = dumps({"success": True, "sessionId": "0227E8CC-CEA0-4640-8CBD-C63D69079895"})
//   print("authResponse", env("authResponse", 1700000000.75, resp_inner))
//   jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0]) + b"\x00\x10JFIF\x00" + bytes(range(10)) + bytes([0xFF, 0xD9])
//   print("jpeg hex", jpeg.hex(), len(jpeg))
//   frame_inner = dumps({"frameId": "f-0001", "timestamp": 1700000001.25, "imageData": base64.b64encode(jpeg).decode(),
//                        "devicePose": [[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
//                        "intrinsics": {"fx": 1450.5, "fy": 1450.5, "cx": 960, "cy": 720, "width": 1920, "height": 1440}})
//   print("cameraFrame inner", frame_inner)
//   print("cameraFrame", env("cameraFrame", 1700000001.25, frame_inner))
//   pose_inner = dumps({"timestamp": 1700000002.5, "poses": [{"personId": "person-1", "joints": [
//       {"type": "head", "position": [0.25, 1.5, 2], "confidence": 0.9},
//       {"type": "leftWrist", "position": [-0.5, 1, 2.25], "confidence": 0.75}], "sourceDevice": "aerie", "confidence": 0.85}]})
//   print("poseBroadcast", env("poseBroadcast", 1700000002.5, pose_inner))
//   print("heartbeat client", env("heartbeat", 1700000003, "{}"))
//   print("heartbeat server", env("heartbeat", 1700000003, dumps({"pong": True})))
//
/// The error offsets were computed by this second script, from the formula in
/// docs/protocols.md's base64 layout (inner byte i lies in base64 characters
/// [4*(i/3), 4*(i/3)+4) after the payload's opening quote):
//
//   import json, base64
//   def dumps(o): return json.dumps(o, separators=(',', ':'))
//   def env(kind, ts, inner_text):
//       return dumps({"type": kind, "timestamp": ts, "payload": base64.b64encode(inner_text.encode()).decode()})
//   def p_of(s): return s.index('"payload":"') + len('"payload":"')
//
//   s = '{"type":"cameraFrame","timestamp":1,"payload":"!!!notbase64"}'
//   print("real bad b64 offset", s.index('!'))
//   hb = env("heartbeat", 1700000003, dumps({"pong": True}))
//   bad = hb[:p_of(hb) + 5] + '*' + hb[p_of(hb) + 6:]
//   print("star", bad, bad.index('*'))
//   nopad = '{"type":"heartbeat","timestamp":1,"payload":"e30"}'
//   print("nopad closing quote", nopad.rindex('"'))
//   # escapes: a payload with '/' written as '\/' by Apple's JSONEncoder
//   inner = dumps({"success": False, "error": "???>>>"})
//   e = env("authResponse", 1, inner)
//   print("has slash", '/' in e, e)
//   esc = e.replace('/', '\\/')
//   print("escaped", esc)
//   # bad char after the escapes: replace the last base64 char before padding with '*'
//   p = p_of(esc)
//   q = esc.index('"', p)
//   i = q - 3
//   esc_bad = esc[:i] + '*' + esc[i + 1:]
//   print("escaped bad", esc_bad, esc_bad.index('*'))
//
//   frame = {"frameId": "f-0001", "timestamp": 1700000001.25, "imageData": "/9j/4AAQSkZJRgAAAQIDBAUGBwgJ/9k=",
//            "devicePose": [[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
//            "intrinsics": {"fx": 1450.5, "fy": 1450.5, "cx": 960, "cy": 720, "width": 1920, "height": 1440}}
//   def framed(f):
//       inner = dumps(f)
//       s = env("cameraFrame", 1700000001.25, inner)
//       return inner, s, p_of(s)
//   inner, s, p = framed(frame)
//   a = inner.index('1450.5'); b = a + 6
//   print("fx node range", p + 4 * (a // 3), p + 4 * ((b + 2) // 3))
//   f = json.loads(json.dumps(frame)); f["intrinsics"]["fx"] = "1450.5"
//   inner, s, p = framed(f); a = inner.index('"1450.5"')
//   print("fx string", s, "offset", p + 4 * (a // 3))
//   f = json.loads(json.dumps(frame)); del f["intrinsics"]
//   inner, s, p = framed(f)
//   print("no intrinsics", s, "offset", p)
//   f = json.loads(json.dumps(frame)); del f["intrinsics"]["fx"]
//   inner, s, p = framed(f); a = inner.index('{"fy"')
//   print("no fx", s, "offset", p + 4 * (a // 3))
//   f = json.loads(json.dumps(frame)); f["devicePose"] = f["devicePose"][:3]
//   inner, s, p = framed(f); a = inner.index('[[')
//   print("pose 3x4", s, "offset", p + 4 * (a // 3))
//   s = '{"type":5,"timestamp":1,"payload":"e30="}'
//   print("type 5 offset", s.index('5'))
//   s = '{"type":"videoFrame","timestamp":1,"payload":"e30="}'
//   print("videoFrame offset", s.index('"videoFrame"'))
//   s = env("heartbeat", 1, "not json")
//   print("not json", s, "offset", p_of(s))
//   bare = dumps(dict(frame, intrinsics=dict(frame["intrinsics"], width=1920.5)))
//   print("bare width", bare, "offset", bare.index('1920.5'))
//
/// The `real…` strings are messages from `aerie-real-session.pcap` (the real
/// Aerie server and a client speaking the app's format), extracted with
/// `tshark -r aerie-real-session.pcap -Y "websocket.opcode==1" -T fields -e websocket.payload.text`.
enum Vectors {
  static let deviceId = "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E"
  /// `client token` above.
  static let clientToken = "MrpgkgQ55uOBGX2vSJl7GEfA8wiMb6vs4vZ53PN5Eqg="

  static let authRequest =
    #"{"type":"authRequest","timestamp":1700000000.5,"payload":"eyJkZXZpY2VJZCI6IkM0MkUxQ0EwLTk0Q0YtNkFCQS05RUFCLUNCQTEzRjE5NzExRSIsInRva2VuIjoiTXJwZ2tnUTU1dU9CR1gydlNKbDdHRWZBOHdpTWI2dnM0dlo1M1BONUVxZz0iLCJkZXZpY2VJbmZvIjp7Im1vZGVsIjoiaVBob25lIDE1IFBybyIsIm9zVmVyc2lvbiI6ImlPUyAxOC4xIiwiaGFzTGlEQVIiOnRydWV9fQ=="}"#
  static let authResponse =
    #"{"type":"authResponse","timestamp":1700000000.75,"payload":"eyJzdWNjZXNzIjp0cnVlLCJzZXNzaW9uSWQiOiIwMjI3RThDQy1DRUEwLTQ2NDAtOENCRC1DNjNENjkwNzk4OTUifQ=="}"#
  /// `jpeg hex` above.
  static let jpeg: [UInt8] = [
    0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
    0x05, 0x06, 0x07, 0x08, 0x09, 0xFF, 0xD9,
  ]
  static let cameraFrameInner =
    #"{"frameId":"f-0001","timestamp":1700000001.25,"imageData":"/9j/4AAQSkZJRgAAAQIDBAUGBwgJ/9k=","devicePose":[[1,0,0,0.1],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"intrinsics":{"fx":1450.5,"fy":1450.5,"cx":960,"cy":720,"width":1920,"height":1440}}"#
  static let cameraFrame =
    #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMC4xXSxbMCwxLDAsMF0sWzAsMCwxLDBdLFswLDAsMCwxXV0sImludHJpbnNpY3MiOnsiZngiOjE0NTAuNSwiZnkiOjE0NTAuNSwiY3giOjk2MCwiY3kiOjcyMCwid2lkdGgiOjE5MjAsImhlaWdodCI6MTQ0MH19"}"#
  static let poseBroadcast =
    #"{"type":"poseBroadcast","timestamp":1700000002.5,"payload":"eyJ0aW1lc3RhbXAiOjE3MDAwMDAwMDIuNSwicG9zZXMiOlt7InBlcnNvbklkIjoicGVyc29uLTEiLCJqb2ludHMiOlt7InR5cGUiOiJoZWFkIiwicG9zaXRpb24iOlswLjI1LDEuNSwyXSwiY29uZmlkZW5jZSI6MC45fSx7InR5cGUiOiJsZWZ0V3Jpc3QiLCJwb3NpdGlvbiI6Wy0wLjUsMSwyLjI1XSwiY29uZmlkZW5jZSI6MC43NX1dLCJzb3VyY2VEZXZpY2UiOiJhZXJpZSIsImNvbmZpZGVuY2UiOjAuODV9XX0="}"#
  static let heartbeatClient = #"{"type":"heartbeat","timestamp":1700000003,"payload":"e30="}"#
  static let heartbeatServer =
    #"{"type":"heartbeat","timestamp":1700000003,"payload":"eyJwb25nIjp0cnVlfQ=="}"#

  static let all = [authRequest, authResponse, cameraFrame, poseBroadcast, heartbeatClient, heartbeatServer]

  // Real capture (frames 23, 24, 26, 27, 50, 52 of aerie-real-session.pcap).
  static let realAuthRequest =
    #"{"type":"authRequest","timestamp":1795314595.9181287,"payload":"eyJkZXZpY2VJZCI6IkM0MkUxQ0EwLTk0Q0YtNkFCQS05RUFCLUNCQTEzRjE5NzExRSIsInRva2VuIjoieS9TM0pGczJQMHUvTWI1VVRrVWtSUURmbkUrdXk5c2FvamFxVjU0MUdsaz0iLCJkZXZpY2VJbmZvIjp7Im1vZGVsIjoiaVBob25lIDE1IFBybyIsIm9zVmVyc2lvbiI6ImlPUyAxOC4xIiwiaGFzTGlEQVIiOnRydWV9fQ=="}"#
  static let realAuthResponse =
    #"{"timestamp":1795314595.9340432,"payload":"eyJzdWNjZXNzIjp0cnVlLCJzZXNzaW9uSWQiOiIwMjI3RThDQy1DRUEwLTQ2NDAtOENCRC1DNjNENjkwNzk4OTUifQ==","type":"authResponse"}"#
  static let realHeartbeat = #"{"type":"heartbeat","timestamp":1795314595.9352582,"payload":"e30="}"#
  static let realPong =
    #"{"type":"heartbeat","payload":"eyJwb25nIjogdHJ1ZX0=","timestamp":1795314595.9358864}"#
  static let realNotBase64 = #"{"type":"cameraFrame","timestamp":1,"payload":"!!!notbase64"}"#
  static let realAuthFailure =
    #"{"payload":"eyJzdWNjZXNzIjpmYWxzZSwiZXJyb3IiOiJUaGUgb3BlcmF0aW9uIGNvdWxkIG5vdCBiZSBjb21wbGV0ZWQuIFRoZSBkYXRhIGlzbuKAmXQgaW4gdGhlIGNvcnJlY3QgZm9ybWF0LiJ9","timestamp":1795314606.3857105,"type":"authResponse"}"#

  static let real = [realAuthRequest, realAuthResponse, realHeartbeat, realPong, realAuthFailure]

  // Damaged messages (second script).
  static let badStar = #"{"type":"heartbeat","timestamp":1700000003,"payload":"eyJwb*5nIjp0cnVlfQ=="}"#
  static let noPadding = #"{"type":"heartbeat","timestamp":1,"payload":"e30"}"#
  static let escapedSlash =
    #"{"type":"authResponse","timestamp":1,"payload":"eyJzdWNjZXNzIjpmYWxzZSwiZXJyb3IiOiI\/Pz8+Pj4ifQ=="}"#
  static let escapedSlashBad =
    #"{"type":"authResponse","timestamp":1,"payload":"eyJzdWNjZXNzIjpmYWxzZSwiZXJyb3IiOiI\/Pz8+Pj4if*=="}"#
  static let fxString =
    #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMC4xXSxbMCwxLDAsMF0sWzAsMCwxLDBdLFswLDAsMCwxXV0sImludHJpbnNpY3MiOnsiZngiOiIxNDUwLjUiLCJmeSI6MTQ1MC41LCJjeCI6OTYwLCJjeSI6NzIwLCJ3aWR0aCI6MTkyMCwiaGVpZ2h0IjoxNDQwfX0="}"#
  static let noIntrinsics =
    #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMC4xXSxbMCwxLDAsMF0sWzAsMCwxLDBdLFswLDAsMCwxXV19"}"#
  static let noFx =
    #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMC4xXSxbMCwxLDAsMF0sWzAsMCwxLDBdLFswLDAsMCwxXV0sImludHJpbnNpY3MiOnsiZnkiOjE0NTAuNSwiY3giOjk2MCwiY3kiOjcyMCwid2lkdGgiOjE5MjAsImhlaWdodCI6MTQ0MH19"}"#
  static let pose3x4 =
    #"{"type":"cameraFrame","timestamp":1700000001.25,"payload":"eyJmcmFtZUlkIjoiZi0wMDAxIiwidGltZXN0YW1wIjoxNzAwMDAwMDAxLjI1LCJpbWFnZURhdGEiOiIvOWovNEFBUVNrWkpSZ0FBQVFJREJBVUdCd2dKLzlrPSIsImRldmljZVBvc2UiOltbMSwwLDAsMC4xXSxbMCwxLDAsMF0sWzAsMCwxLDBdXSwiaW50cmluc2ljcyI6eyJmeCI6MTQ1MC41LCJmeSI6MTQ1MC41LCJjeCI6OTYwLCJjeSI6NzIwLCJ3aWR0aCI6MTkyMCwiaGVpZ2h0IjoxNDQwfX0="}"#
  static let typeNumber = #"{"type":5,"timestamp":1,"payload":"e30="}"#
  static let videoFrame = #"{"type":"videoFrame","timestamp":1,"payload":"e30="}"#
  static let notJSON = #"{"type":"heartbeat","timestamp":1,"payload":"bm90IGpzb24="}"#
  static let bareWidthFraction =
    #"{"frameId":"f-0001","timestamp":1700000001.25,"imageData":"/9j/4AAQSkZJRgAAAQIDBAUGBwgJ/9k=","devicePose":[[1,0,0,0.1],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"intrinsics":{"fx":1450.5,"fy":1450.5,"cx":960,"cy":720,"width":1920.5,"height":1440}}"#
}

extension String {
  var bytes: [UInt8] { Array(utf8) }
}
