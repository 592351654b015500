import Foundation
import NIOCore
import PacketDecode
import PacketKit

/// What `listen` was asked to do, as a plain value for the event loop.
struct ListenConfiguration: Sendable {
  /// The run's codecs.
  var codecs: CodecSet
  var address: ListenAddress
  var codec: String?
  var rules: [DecodeAsRule]
  var output: LiveOutputSettings
  var countLimit: Int?
  /// `emulate`: the device the socket plays.
  var emulation: EmulationSettings?
  /// ws: the guards against clients that hold memory or sockets.
  var server = WebSocketServerSettings()
  /// udp: SO_RCVBUF for the sockets, when asked for.
  var receiveBufferBytes: Int?
}

/// What `emulate` plays: a codec's device model and its settings.
struct EmulationSettings: Sendable {
  var codec: String
  var settings: ModelSettings
  /// Events as `analyze --timeline`'s NDJSON instead of text.
  var ndjson: Bool
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
  /// `emulate`: where the device's events are printed, and the one device
  /// behind the socket (every sender's and every connection's).
  let timeline: EmulatorTimeline?
  private var emulated: DeviceEmulator?
  /// ws: the bytes all connections hold, and the connections cut.
  let budget: ConnectionBudget
  /// ws: the paths the codecs name, and the fields they fill.
  let pathField: WebSocketPathField
  /// ws: the lines clients past --max-connections make.
  let refusals = RefusalLog()
  /// The exit status `stop` was given: 130 for a signal.
  private var status: Int32 = ExitStatus.ok
  /// udp: the datagrams the kernel dropped (a full receive queue), read as the sockets close.
  private var kernelDrops: Int?

  init(configuration: ListenConfiguration, loop: EventLoop, done: EventLoopPromise<Int32>) {
    self.configuration = configuration
    self.loop = loop
    self.done = done
    budget = ConnectionBudget(settings: configuration.server)
    let out = OutputWriter()
    self.out = out
    let sink = configuration.output.makeSink(out: out, codecs: configuration.codecs)
    recorder = LiveRecorder(
      inner: sink, out: out, codecs: configuration.codecs, countLimit: configuration.countLimit,
      displayFilter: configuration.output.displayFilter)
    pathField = WebSocketPathField(configuration.codecs)
    decoding = LiveDecoding(
      router: PayloadRouter(
        rules: configuration.rules, forcedCodec: configuration.codec, codecs: configuration.codecs),
      keepPayload: (sink?.wantsPayload ?? false) || configuration.emulation != nil)
    timeline = configuration.emulation.map {
      EmulatorTimeline(
        out: out, ndjson: $0.ndjson,
        style: Style.forOutput(out))
    }
    // Stop on the next loop turn, so an emulated device's reply to the last message still goes out.
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
  func datagram(_ envelope: AddressedEnvelope<ByteBuffer>, local: SocketAddress?, channel: Channel) {
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
    emulate(record, from: envelope.remoteAddress, on: channel)
  }

  /// The emulated device, made on first use; nil when not emulating.
  func device() -> DeviceEmulator? {
    if let emulated { return emulated }
    emulated = makeDevice()
    return emulated
  }

  /// A problem that is not a message (a socket error): one line on stderr.
  func warn(_ text: String) {
    OutputWriter.standardError.line("pktbench: \(text)")
  }

  /// Stops once: closes the sockets (WebSocket clients get 1001 going away),
  /// then writes the summary and completes `done` with `status` (130 when
  /// a signal stopped it, as for every command).
  func stop(_ reason: String, status: Int32 = ExitStatus.ok) {
    guard stopReason == nil else { return }
    stopReason = reason
    self.status = status
    emulated?.stop()
    if configuration.address.kind == .udp {
      kernelDrops = UDPKernelDrops.count(ports: Set(channels.compactMap { $0.localAddress?.port }))
    }
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
    refusals.flush(limit: budget.maxConnections, warn: warn)
    recorder.finish(name: configuration.address.display)
    if configuration.output.stats {
      let elapsed = Double(monotonicNanoseconds() - startedNanoseconds) / 1e9
      var summary = LiveSummary(
        name: "listen \(configuration.address.display)", stopReason: stopReason ?? "end",
        elapsedSeconds: elapsed, recorder: recorder)
      summary.kernelDrops = kernelDrops
      summary.notes += budget.summaryLines(
        headTimeout:
          "--head-timeout \(DurationText.of(Double(configuration.server.headTimeoutNanoseconds) / 1e9))",
        idleTimeout:
          "--idle-timeout \(DurationText.of(Double(configuration.server.idleTimeoutNanoseconds) / 1e9))")
      summary.write(options: configuration.output, out: out)
    } else if let kernelDrops, kernelDrops > 0 {
      // Lost datagrams are said even without --stats.
      warn(
        "\(configuration.address.display): \(LiveSummary.kernelDropsText(kernelDrops))")
    }
    out.flush()
    done.succeed(status)
  }
}
