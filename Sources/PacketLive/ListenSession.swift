import Foundation
import NIOCore
import PacketDecode
import PacketKit

/// What `listen` was asked to do, as a plain value for the event loop.
public struct ListenConfiguration: Sendable {
  /// The run's codecs.
  package var codecs: CodecSet
  package var address: ListenAddress
  package var codec: String?
  package var rules: [DecodeAsRule]
  package var output: LiveOutputSettings
  package var countLimit: Int?
  /// `emulate`: the device the socket plays.
  package var emulation: EmulationSettings?
  /// ws: the guards against clients that hold memory or sockets.
  package var server = WebSocketServerSettings()
  /// udp: SO_RCVBUF for the sockets, when asked for.
  package var receiveBufferBytes: Int?

  /// A listener on `address` (`ListenAddress.parse("udp:5005")`) that
  /// decodes each message with `codecs` and writes it as `output` says,
  /// stopping after `countLimit` messages if given; with `emulation`, the
  /// device that answers.
  public init(
    codecs: CodecSet, address: ListenAddress, output: LiveOutputSettings = LiveOutputSettings(),
    countLimit: Int? = nil, emulation: EmulationSettings? = nil
  ) {
    self.init(
      codecs: codecs, address: address, codec: emulation?.codec, rules: [], output: output,
      countLimit: countLimit, emulation: emulation, server: WebSocketServerSettings())
  }

  package init(
    codecs: CodecSet, address: ListenAddress, codec: String?, rules: [DecodeAsRule],
    output: LiveOutputSettings,
    countLimit: Int?, emulation: EmulationSettings?, server: WebSocketServerSettings,
    receiveBufferBytes: Int? = nil
  ) {
    self.codecs = codecs
    self.address = address
    self.codec = codec
    self.rules = rules
    self.output = output
    self.countLimit = countLimit
    self.emulation = emulation
    self.server = server
    self.receiveBufferBytes = receiveBufferBytes
  }
}

/// One `listen` run. Lives on its event loop (the group has one thread):
/// every socket's handler calls into it there, so decoding and output are
/// never concurrent. `stop` closes every socket, writes the summary and
/// completes `done` with the exit status.
final class ListenSession {
  package let configuration: ListenConfiguration
  package let loop: EventLoop
  package let recorder: LiveRecorder
  package let decoding: LiveDecoding
  private let out: OutputWriter
  private let done: EventLoopPromise<Int32>
  private var channels: [Channel] = []
  private var connections: [ObjectIdentifier: WebSocketConnectionHandler] = [:]
  package private(set) var stopReason: String?
  private let startedNanoseconds = monotonicNanoseconds()
  /// `emulate`: where the device's events are printed, and the one device
  /// behind the socket (every sender's and every connection's).
  package let timeline: EmulatorTimeline?
  private var emulated: DeviceEmulator?
  /// ws: the bytes all connections hold, and the connections cut.
  package let budget: ConnectionBudget
  /// ws: the paths the codecs name, and the fields they fill.
  package let pathField: WebSocketPathField
  /// ws: the lines clients past --max-connections make.
  package let refusals = RefusalLog()
  /// The exit status `stop` was given: 130 for a signal.
  private var status: Int32 = ExitStatus.ok
  /// udp: the datagrams the kernel dropped (a full receive queue), read as the sockets close.
  private var kernelDrops: Int?

  package init(configuration: ListenConfiguration, loop: EventLoop, done: EventLoopPromise<Int32>) {
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

  package func add(_ channel: Channel) {
    channels.append(channel)
  }

  package func opened(_ connection: WebSocketConnectionHandler) {
    connections[ObjectIdentifier(connection)] = connection
  }

  package func closed(_ connection: WebSocketConnectionHandler) {
    connections[ObjectIdentifier(connection)] = nil
  }

  /// One datagram: decoded and written at once; a malformed one is shown
  /// as a decode error and the listener goes on.
  package func datagram(_ envelope: AddressedEnvelope<ByteBuffer>, local: SocketAddress?, channel: Channel) {
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
  package func device() -> DeviceEmulator? {
    if let emulated { return emulated }
    emulated = makeDevice()
    return emulated
  }

  /// A problem that is not a message (a socket error): one line on stderr.
  package func warn(_ text: String) {
    OutputWriter.standardError.line("pktbench: \(text)")
  }

  /// Stops once: closes the sockets (WebSocket clients get 1001 going away),
  /// then writes the summary and completes `done` with `status` (130 when
  /// a signal stopped it, as for every command).
  package func stop(_ reason: String, status: Int32 = ExitStatus.ok) {
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
