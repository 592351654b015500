import NIOCore
import PacketKit

/// What `listen` was asked to do, as a plain value for the event loop.
struct ListenConfiguration: Sendable {
  var address: ListenAddress
  var codec: String?
  var rules: [DecodeAsRule]
  var output: LiveOutputSettings
  var countLimit: Int?
  /// `--respond`: answer like the Aerie server (ws only).
  var responder: FalconEyeResponder.Configuration?
}

/// One `listen` run. Lives on its event loop (the group has one thread):
/// every socket's handler calls into it there, so decoding and output are
/// never concurrent. `stop` closes every socket, writes the summary and
/// completes `done` with the exit status.
final class ListenSession {
  let configuration: ListenConfiguration
  let loop: EventLoop
  let recorder: LiveRecorder
  let decoding: LiveDecoding
  private let out: OutputWriter
  private let done: EventLoopPromise<Int32>
  private var channels: [Channel] = []
  private var connections: [ObjectIdentifier: WebSocketConnectionHandler] = [:]
  private(set) var stopReason: String?
  private let startedNanoseconds = monotonicNanoseconds()

  init(configuration: ListenConfiguration, loop: EventLoop, done: EventLoopPromise<Int32>) {
    self.configuration = configuration
    self.loop = loop
    self.done = done
    out = OutputWriter()
    let sink = configuration.output.makeSink(out: out)
    recorder = LiveRecorder(inner: sink, out: out, countLimit: configuration.countLimit)
    decoding = LiveDecoding(
      router: PayloadRouter(rules: configuration.rules, forcedCodec: configuration.codec),
      keepPayload: sink?.wantsPayload ?? false)
    // Stop on the next loop turn, so a --respond reply to the last message still goes out.
    recorder.onLimitReached = { [unowned self] in
      self.loop.assumeIsolated().execute { self.stop("--count \(configuration.countLimit ?? 0)") }
    }
  }

  var isStopping: Bool { stopReason != nil }

  func add(_ channel: Channel) {
    channels.append(channel)
  }

  func opened(_ connection: WebSocketConnectionHandler) {
    connections[ObjectIdentifier(connection)] = connection
  }

  func closed(_ connection: WebSocketConnectionHandler) {
    connections[ObjectIdentifier(connection)] = nil
  }

  /// One datagram: decoded and written at once; a malformed one is shown
  /// as a decode error and the listener goes on.
  func datagram(_ envelope: AddressedEnvelope<ByteBuffer>, local: SocketAddress?) {
    guard !isStopping else { return }
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: "udp",
      source: EndpointText.of(envelope.remoteAddress), destination: EndpointText.of(local),
      payloadLength: envelope.data.readableBytes)
    // A socket bound to every address learns the one each datagram was sent to from IP_PKTINFO.
    if let info = envelope.metadata?.packetInfo, let ip = info.destinationAddress.ipAddress,
      let port = local?.port
    {
      record.destination = EndpointText.of(ip: ip, port: port)
    }
    record.sourcePort = UInt16(clamping: envelope.remoteAddress.port ?? 0)
    record.destinationPort = UInt16(clamping: local?.port ?? 0)
    envelope.data.withUnsafeReadableBytes { payload in
      decoding.decode(payload, carrier: .udp, into: &record)
    }
    recorder.emit(record, counts: true)
  }

  /// A problem that is not a message (a socket error): one line on stderr.
  func warn(_ text: String) {
    OutputWriter.standardError.line("pktbench: \(text)")
  }

  /// Stops once: closes the sockets (WebSocket clients get 1001 going away),
  /// then writes the summary and completes `done`.
  func stop(_ reason: String) {
    guard stopReason == nil else { return }
    stopReason = reason
    var closing: [EventLoopFuture<Void>] = []
    for connection in connections.values {
      closing.append(connection.goAway())
    }
    for channel in channels {
      closing.append(channel.close().recover { _ in })
    }
    EventLoopFuture.andAllComplete(closing, on: loop).assumeIsolated().whenComplete { _ in
      self.finish()
    }
  }

  private func finish() {
    recorder.finish(name: configuration.address.display)
    if configuration.output.stats {
      let elapsed = Double(monotonicNanoseconds() - startedNanoseconds) / 1e9
      let summary = LiveSummary(
        name: "listen \(configuration.address.display)", stopReason: stopReason ?? "end",
        elapsedSeconds: elapsed, recorder: recorder)
      summary.write(options: configuration.output, out: out)
    }
    out.flush()
    done.succeed(0)
  }
}
