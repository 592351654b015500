import PacketKit

/// Turns capture records into transport events: strips the link layer,
/// checks and reassembles IP, checks UDP and reassembles TCP streams.
///
/// Decoding is streaming and bounded by `CaptureLimits`; timeouts run on
/// capture time. No input makes it trap: what it cannot decode becomes an
/// `undecoded` or `damaged` event.
public final class PacketDecoder {
  public let limits: CaptureLimits
  @exclusivity(unchecked) private var fragments = FragmentReassembler()
  private let connections: TCPConnectionTable
  /// The latest record time seen; captures are not always in time order.
  @exclusivity(unchecked) private var now = -Double.infinity
  @exclusivity(unchecked) private var lastFragmentSweep = -Double.infinity
  /// Reasons for unsupported link types and IP protocols, built once each.
  @exclusivity(unchecked) private var linkTypeReasons: [Int32: String] = [:]
  @exclusivity(unchecked) private var protocolReasons: [UInt8: String] = [:]

  public init(limits: CaptureLimits = .default) {
    self.limits = limits
    connections = TCPConnectionTable(limits: limits)
  }

  /// Out-of-order TCP bytes plus fragment bytes held now.
  public var bufferedBytes: Int { connections.bufferedBytes + fragments.storedBytes }
  /// TCP connections open now.
  public var openConnections: Int { connections.openCount }
  /// IP datagrams waiting for fragments.
  public var pendingFragmentedDatagrams: Int { fragments.pendingCount }

  public func decode(_ record: CaptureRecord, _ emit: (TransportEvent) -> Void) {
    decode(
      record,
      plainDatagram: { source, destination, payload in
        emit(
          .datagram(
            frame: record.frame, time: record.time, source: source, destination: destination,
            payload: payload,
            diagnostics: []))
      }, emit)
  }

  /// `decode`, with the common packet (`PlainUDP`: a UDP datagram with no
  /// diagnostics at any layer) handed to `plainDatagram` in parts rather
  /// than built as a `TransportEvent`, matched and destroyed.
  public func decode(
    _ record: CaptureRecord,
    plainDatagram: (_ source: Endpoint, _ destination: Endpoint, _ payload: UnsafeRawBufferPointer) -> Void,
    _ emit: (TransportEvent) -> Void
  ) {
    if record.time.isFinite, record.time > now { now = record.time }
    expire(emit)
    if let datagram = PlainUDP.read(record) {
      plainDatagram(datagram.source, datagram.destination, datagram.payload)
      return
    }
    decodeLayers(record, emit)
  }

  /// Every record through the layer decoders, with no fast path (the
  /// tests hold `PlainUDP` to it).
  func decodeLayers(_ record: CaptureRecord, _ emit: (TransportEvent) -> Void) {
    guard LinkLayer.supports(record.linkType) else {
      emit(.undecoded(frame: record.frame, time: record.time, reason: reason(forLinkType: record.linkType)))
      return
    }
    let input = LayerInput(record)
    do {
      let link = try LinkLayer.decode(input, linkType: record.linkType)
      let network = input.slice(from: link.offset)
      switch link.network {
      case .ipv4: try decodeIPv4(network, record, emit)
      case .ipv6: try decodeIPv6(network, record, emit)
      }
    } catch {
      report(error, frame: record.frame, time: record.time, emit)
    }
  }

  /// End of capture: abandons incomplete datagrams, reports remaining TCP
  /// gaps and closes every connection.
  public func finish(_ emit: (TransportEvent) -> Void) {
    for dropped in fragments.drain() { report(dropped, emit) }
    connections.closeAll(emit)
  }

  private func expire(_ emit: (TransportEvent) -> Void) {
    connections.sweep(now: now, emit)
    guard fragments.pendingCount > 0, now - lastFragmentSweep >= min(1, limits.fragmentTimeout) else {
      return
    }
    lastFragmentSweep = now
    for dropped in fragments.expire(before: now - limits.fragmentTimeout, timeout: limits.fragmentTimeout) {
      report(dropped, emit)
    }
  }

  /// A datagram given up on, said where its first fragment was: its data
  /// is lost, which the output must show.
  private func report(_ dropped: AbandonedDatagram, _ emit: (TransportEvent) -> Void) {
    let key = dropped.key
    let fragments = dropped.fragments == 1 ? "1 fragment" : "\(dropped.fragments) fragments"
    emit(
      .notice(
        CaptureNotice(
          .fragmentsDropped, .warning, frame: dropped.frame, time: dropped.time,
          ends: .ip(source: key.source, destination: key.destination),
          text:
            "\(key.family) datagram \(key.identificationText) (\(fragments), \(dropped.bytes) bytes) "
            + dropped.text(),
          reason: dropped.reason.rawValue,
          details: [
            ("identification", Int(key.identification)), ("fragments", dropped.fragments),
            ("bytes", dropped.bytes), ("deciding_frame", dropped.decidingFrame),
          ])))
  }

  private func report(_ failure: LayerFailure, frame: Int, time: Double, _ emit: (TransportEvent) -> Void) {
    switch failure.kind {
    case .undecoded:
      emit(.undecoded(frame: frame, time: time, reason: failure.text))
    case .damaged:
      emit(
        .damaged(frame: frame, time: time, layer: failure.layer, offset: failure.offset, text: failure.text))
    }
  }

  // MARK: Network layer

  private func decodeIPv4(
    _ input: LayerInput, _ record: CaptureRecord, _ emit: (TransportEvent) -> Void
  ) throws(LayerFailure) {
    let header = try IPv4Header.parse(input)
    let payload = input.slice(from: header.headerLength, length: header.totalLength - header.headerLength)
    guard header.isFragment else {
      try transport(
        header.protocolNumber, payload, source: header.source, destination: header.destination,
        frame: record.frame, time: record.time, diagnostics: header.diagnostics, emit)
      return
    }
    let key = FragmentKey(
      source: header.source, destination: header.destination,
      identification: UInt32(header.identification), protocolNumber: header.protocolNumber)
    if payload.missing > 0 {
      dropCut(key, payload, record, emit)
      return
    }
    try reassemble(
      key, offset: header.fragmentOffset, payload, more: header.moreFragments,
      nextHeader: header.protocolNumber, record, diagnostics: header.diagnostics, emit
    ) { datagram, bytes throws(LayerFailure) in
      try transport(
        datagram.nextHeader, bytes, source: header.source, destination: header.destination,
        frame: datagram.frame, time: datagram.time, diagnostics: datagram.diagnostics, emit)
    }
  }

  private func decodeIPv6(
    _ input: LayerInput, _ record: CaptureRecord, _ emit: (TransportEvent) -> Void
  ) throws(LayerFailure) {
    let packet = try IPv6Packet.parse(input)
    switch packet.next {
    case .upper(let protocolNumber, let offset):
      try transport(
        protocolNumber, input.slice(from: offset, length: packet.end - offset), source: packet.source,
        destination: packet.destination, frame: record.frame, time: record.time,
        diagnostics: packet.diagnostics, emit)
    case .fragment(let fragment):
      let key = FragmentKey(
        source: packet.source, destination: packet.destination, identification: fragment.identification,
        protocolNumber: 0)
      let data = input.slice(from: fragment.dataOffset, length: packet.end - fragment.dataOffset)
      if data.missing > 0 {
        dropCut(key, data, record, emit)
        return
      }
      try reassemble(
        key, offset: fragment.offset, data, more: fragment.more, nextHeader: fragment.nextHeader, record,
        diagnostics: packet.diagnostics, emit
      ) { datagram, bytes throws(LayerFailure) in
        // Extension headers may follow the fragment header inside the reassembled data.
        switch try IPv6Extensions.walk(bytes, from: 0, nextHeader: datagram.nextHeader, end: bytes.count) {
        case .upper(let protocolNumber, let offset):
          try transport(
            protocolNumber, bytes.slice(from: offset), source: packet.source,
            destination: packet.destination, frame: datagram.frame, time: datagram.time,
            diagnostics: datagram.diagnostics, emit)
        case .fragment:
          throw bytes.damaged("ipv6", at: 0, "a reassembled IPv6 datagram holds another fragment header")
        }
      }
    }
  }

  /// Adds a fragment; when it completes its datagram, calls `complete` with
  /// the rebuilt bytes (valid only during the call).
  private func reassemble(
    _ key: FragmentKey, offset: Int, _ data: LayerInput, more: Bool, nextHeader: UInt8,
    _ record: CaptureRecord, diagnostics: [Diagnostic], _ emit: (TransportEvent) -> Void,
    complete: (ReassembledDatagram, LayerInput) throws(LayerFailure) -> Void
  ) throws(LayerFailure) {
    var abandoned: [AbandonedDatagram] = []
    let result = fragments.add(
      key, offset: offset, data: data.bytes, more: more, nextHeader: nextHeader, frame: record.frame,
      time: record.time, diagnostics: diagnostics, limits: limits, abandoned: &abandoned)
    for dropped in abandoned { report(dropped, emit) }
    switch result {
    case .incomplete:
      return
    case .rejected(let reason):
      throw data.damaged(key.family.lowercased(), at: 0, reason)
    case .complete(let datagram):
      try datagram.bytes.withUnsafeBytes { bytes in
        Result { () throws(LayerFailure) in
          try complete(datagram, LayerInput(bytes: bytes, reassembled: true))
        }
      }.get()
    }
  }

  /// A fragment the snap length cut: its datagram can never be whole.
  private func dropCut(
    _ key: FragmentKey, _ data: LayerInput, _ record: CaptureRecord, _ emit: (TransportEvent) -> Void
  ) {
    report(
      fragments.abandonCut(
        key, frame: record.frame, time: record.time, kept: data.count, original: data.count + data.missing),
      emit)
  }

  // MARK: Transport layer

  private func transport(
    _ protocolNumber: UInt8, _ input: LayerInput, source: IPAddress, destination: IPAddress,
    frame: Int, time: Double, diagnostics: [Diagnostic], _ emit: (TransportEvent) -> Void
  ) throws(LayerFailure) {
    switch protocolNumber {
    case UDPDatagram.protocolNumber:
      var diagnostics = diagnostics
      let udp = try UDPDatagram.parse(
        input, source: source, destination: destination, diagnostics: &diagnostics)
      emit(
        .datagram(
          frame: frame, time: time, source: Endpoint(address: source, port: udp.sourcePort),
          destination: Endpoint(address: destination, port: udp.destinationPort), payload: udp.payload,
          diagnostics: diagnostics))
    case TCPSegment.protocolNumber:
      let segment = try TCPSegment.parse(input)
      connections.segment(
        segment, source: Endpoint(address: source, port: segment.sourcePort),
        destination: Endpoint(address: destination, port: segment.destinationPort), frame: frame,
        time: time, emit)
    default:
      throw .undecoded(reason(forProtocol: protocolNumber))
    }
  }

  private func reason(forProtocol number: UInt8) -> String {
    if let cached = protocolReasons[number] { return cached }
    let name: String? =
      switch number {
      case 1: "ICMP"
      case 2: "IGMP"
      case 4: "IP in IP"
      case 41: "IPv6 in IP"
      case 47: "GRE"
      case 50: "ESP"
      case 51: "AH"
      case 58: "ICMPv6"
      case 89: "OSPF"
      case 103: "PIM"
      case 112: "VRRP"
      case 132: "SCTP"
      default: nil
      }
    let text = "IP protocol \(number)" + (name.map { " (\($0))" } ?? "")
    protocolReasons[number] = text
    return text
  }

  private func reason(forLinkType linkType: Int32) -> String {
    if let cached = linkTypeReasons[linkType] { return cached }
    let text = "link type \(linkType) (\(LinkType.name(linkType)))"
    linkTypeReasons[linkType] = text
    return text
  }
}
