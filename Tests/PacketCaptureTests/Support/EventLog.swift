import PacketCapture
import PacketKit

/// Transport events copied out of their callbacks so tests can compare them.
enum Event: Equatable, CustomStringConvertible {
  case datagram(frame: Int, source: String, destination: String, payload: [UInt8], codes: [String])
  case opened(client: String, server: String, frame: Int)
  case data(StreamDirection, frame: Int, bytes: [UInt8])
  case gap(StreamDirection, frame: Int, missing: Int)
  case closed(frame: Int, reason: String)
  case undecoded(frame: Int, reason: String)
  case damaged(frame: Int, layer: String, offset: Int, text: String)
  case cut(StreamDirection, frame: Int, kept: Int, original: Int)
  case desync(StreamDirection, frame: Int, sequence: UInt32, expected: UInt32)
  case notice(CaptureNotice.Kind, frame: Int, reason: String?, text: String)

  init(_ event: TransportEvent) {
    switch event {
    case .datagram(let frame, _, let source, let destination, let payload, let diagnostics):
      self = .datagram(
        frame: frame, source: "\(source)", destination: "\(destination)", payload: Array(payload),
        codes: diagnostics.map(\.code))
    case .streamOpened(let id, let frame, _):
      self = .opened(client: "\(id.client)", server: "\(id.server)", frame: frame)
    case .streamData(_, let direction, let frame, _, let bytes):
      self = .data(direction, frame: frame, bytes: Array(bytes))
    case .streamGap(_, let direction, let frame, _, let missing):
      self = .gap(direction, frame: frame, missing: missing)
    case .streamClosed(_, let frame, _, let reason):
      self = .closed(frame: frame, reason: reason)
    case .undecoded(let frame, _, let reason):
      self = .undecoded(frame: frame, reason: reason)
    case .damaged(let frame, _, let layer, let offset, let text):
      self = .damaged(frame: frame, layer: layer, offset: offset, text: text)
    case .streamCut(_, let direction, let frame, _, let kept, let original, _):
      self = .cut(direction, frame: frame, kept: kept, original: original)
    case .streamDesync(_, let direction, let frame, _, let sequence, let expected):
      self = .desync(direction, frame: frame, sequence: sequence, expected: expected)
    case .notice(let notice):
      self = .notice(notice.kind, frame: notice.frame, reason: notice.reason, text: notice.text)
    }
  }

  var description: String {
    switch self {
    case .datagram(let frame, let source, let destination, let payload, let codes):
      "datagram #\(frame) \(source)→\(destination) \(payload.count)B \(codes)"
    case .opened(let client, let server, let frame): "opened #\(frame) \(client)→\(server)"
    case .data(let direction, let frame, let bytes): "data #\(frame) \(direction) \(bytes.count)B"
    case .gap(let direction, let frame, let missing): "gap #\(frame) \(direction) \(missing)"
    case .closed(let frame, let reason): "closed #\(frame) \(reason)"
    case .undecoded(let frame, let reason): "undecoded #\(frame) \(reason)"
    case .damaged(let frame, let layer, let offset, let text): "damaged #\(frame) \(layer)@\(offset) \(text)"
    case .cut(let direction, let frame, let kept, let original):
      "cut #\(frame) \(direction) \(kept)/\(original)"
    case .desync(let direction, let frame, let sequence, let expected):
      "desync #\(frame) \(direction) \(expected)→\(sequence)"
    case .notice(let kind, let frame, let reason, let text):
      "\(kind.rawValue) #\(frame) \(reason ?? "") \(text)"
    }
  }
}

/// Decodes packets given in memory as records 1, 2, 3… one second apart
/// (unless times are given) and returns every event, including `finish`'s.
func decodeAll(
  _ packets: [[UInt8]], linkType: Int32, times: [Double]? = nil, limits: CaptureLimits = .default,
  finish: Bool = true
) -> [Event] {
  let decoder = PacketDecoder(limits: limits)
  var events: [Event] = []
  for (index, packet) in packets.enumerated() {
    packet.withUnsafeBytes { bytes in
      let record = CaptureRecord(
        frame: index + 1, time: times?[index] ?? Double(index + 1), linkType: linkType, data: bytes)
      decoder.decode(record) { events.append(Event($0)) }
    }
  }
  if finish { decoder.finish { events.append(Event($0)) } }
  return events
}

extension [Event] {
  /// The stream bytes of one direction, concatenated.
  func stream(_ direction: StreamDirection) -> [UInt8] {
    flatMap { event -> [UInt8] in
      if case .data(direction, _, let bytes) = event { return bytes }
      return []
    }
  }

  var datagrams: [(payload: [UInt8], codes: [String])] {
    compactMap { event in
      if case .datagram(_, _, _, let payload, let codes) = event { return (payload, codes) }
      return nil
    }
  }

  var gaps: [Int] {
    compactMap { event in
      if case .gap(_, _, let missing) = event { return missing }
      return nil
    }
  }
}

extension [Event] {
  /// The notices of one kind.
  func notices(_ kind: CaptureNotice.Kind) -> [(frame: Int, reason: String?, text: String)] {
    compactMap { event in
      if case .notice(kind, let frame, let reason, let text) = event { return (frame, reason, text) }
      return nil
    }
  }
}
