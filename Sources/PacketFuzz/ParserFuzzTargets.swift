import PacketCapture
import PacketKit

/// Whole capture files: libpcap's reader, the link, IP, UDP and TCP layers.
/// Invariants: no trap, no hang, bounded buffering, records in order.
public final class PcapFuzzTarget: FuzzTarget {
  private let counter = PayloadCounter()
  private let payloads: SeedPayloads

  init(payloads: SeedPayloads) {
    self.payloads = payloads
  }
  public var name: String { "pcap" }
  public var isJSON: Bool { false }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    SyntheticCapture.pcap(records: 1 + rng.below(6), payloads: payloads, rng: &rng)
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    let start = monotonicNanoseconds()
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(bytes: input)
    } catch {
      stats.errorCodes.add("not-a-capture")
      return nil
    }
    // The same stage `decode` reads captures through: WebSocket detection
    // and parking, Bluetooth link types, PKTAP, all on hostile records.
    let stage = PayloadStage(consumer: counter)
    reader.onNotice = { stage.notice($0) }
    var lastFrame = 0
    var failure: FuzzFailure?
    let end = reader.read { record in
      if record.frame <= lastFrame, failure == nil {
        failure = FuzzFailure(
          target: name, kind: "order", detail: "record \(record.frame) after \(lastFrame)", input: input)
      }
      lastFrame = record.frame
      stage.process(record)
    }
    stage.finish()
    counter.tally(into: &stats)
    if case .damaged = end { stats.errorCodes.add("damaged-file") } else { stats.decoded += 1 }
    return failure
      ?? .bounds(
        target: name, input: input, buffered: stage.bufferedBytes,
        limit: stage.options.limits.maxBufferedBytesTotal, startedAt: start)
  }
}

/// The WebSocket decoder on both directions of a connection: the input's
/// first byte splits it into client and server bytes, fed in chunks.
public final class WebSocketFuzzTarget: FuzzTarget {
  public init() {}
  public var name: String { "websocket" }
  public var isJSON: Bool { false }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    // A masked client text frame "Hello" and an unmasked server one (RFC 6455 §5.7),
    // sometimes compressed (RFC 7692 §7.2.3.1).
    let client: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    let server: [UInt8] =
      rng.chance(1, in: 2)
      ? [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F] : [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    return [UInt8(client.count)] + client + server
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    guard let split = input.first else { return nil }
    let body = Array(input.dropFirst())
    let cut = min(Int(split), body.count)
    var stream = WebSocketStream(
      limits: WebSocketLimits(maxMessageBytes: 1 << 20, maxDecompressedBytes: 1 << 20))
    stream.assumeUpgraded(deflate: split & 1 == 1)
    let start = monotonicNanoseconds()
    var frame = 0
    func feed(_ bytes: ArraySlice<UInt8>, _ direction: WebSocketDirection) {
      var offset = bytes.startIndex
      while offset < bytes.endIndex {
        let chunk = min(bytes.endIndex - offset, 1 + (offset * 7) % 29)
        frame += 1
        Array(bytes[offset..<offset + chunk]).withUnsafeBytes { buffer in
          stream.feed(buffer, direction: direction, frame: frame, time: Double(frame)) { event in
            Self.count(event, &stats)
          }
        }
        offset += chunk
      }
    }
    feed(body[0..<cut], .clientToServer)
    feed(body[cut...], .serverToClient)
    for direction in [WebSocketDirection.clientToServer, .serverToClient] {
      stream.finish(direction: direction, frame: frame, time: Double(frame)) { Self.count($0, &stats) }
    }
    return .bounds(target: name, input: input, buffered: 0, limit: 0, startedAt: start)
  }

  static func count(_ event: WebSocketEvent, _ stats: inout FuzzStats) {
    switch event {
    case .message(let message):
      stats.decoded += 1
      stats.messageKinds.add(message.isText ? "text" : "binary")
    case .control(let control, _, _, _):
      switch control {
      case .ping: stats.messageKinds.add("ping")
      case .pong: stats.messageKinds.add("pong")
      case .close: stats.messageKinds.add("close")
      }
    case .error(_, _, _, let code, _): stats.errorCodes.add(code)
    case .handshakeRequest, .handshakeResponse: stats.messageKinds.add("handshake")
    }
  }
}

/// Small valid captures to start mutating from.
enum SyntheticCapture {
  /// A pcap of Ethernet/IPv4/UDP datagrams carrying the codecs' payloads
  /// to their ports.
  static func pcap(records: Int, payloads: SeedPayloads, rng: inout SplitMix64) -> [UInt8] {
    var out: [UInt8] = []
    func le32(_ v: UInt32) {
      out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }
    le32(0xA1B2_C3D4)
    out += [2, 0, 4, 0]
    le32(0)
    le32(0)
    le32(65535)
    le32(1)
    for index in 0..<records {
      let (port, payload) = payloads.udp(&rng)
      let udpLength = 8 + payload.count
      let ipLength = 20 + udpLength
      var frame: [UInt8] = [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00]
      frame += [0x45, 0, UInt8(ipLength >> 8), UInt8(ipLength & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0]
      frame += [10, 0, 0, 2, 10, 0, 0, 7]
      frame += [
        0xC3, 0x50, UInt8(port >> 8), UInt8(port & 0xFF), UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0,
        0,
      ]
      frame += payload
      le32(1_700_000_000 + UInt32(index))
      le32(0)
      le32(UInt32(frame.count))
      le32(UInt32(frame.count))
      out += frame
    }
    return out
  }
}
