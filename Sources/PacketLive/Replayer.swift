import Foundation
import NIOCore
import NIOPosix
import PacketCapture
import PacketDecode
import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `replay`: the UDP payloads of a capture, sent to one destination with
/// the capture's own timing divided by `speed`. Datagram i leaves at
/// start + (tᵢ − t₀)/speed on the monotonic clock (no drift), read and
/// sent one at a time, so the capture is never loaded whole. Runs on the
/// calling thread; the socket's event loop only reports errors.
package final class Replayer {
  package struct Configuration {
    package var codecs: CodecSet
    package var path: String
    package var target: TargetURL
    /// nil: as fast as possible.
    package var speed: Double?
    package var countLimit: Int?
    package var output: LiveOutputSettings
    package var codec: String?
    package var rules: [DecodeAsRule]

    package init(
      codecs: CodecSet, path: String, target: TargetURL, speed: Double? = nil, countLimit: Int? = nil,
      output: LiveOutputSettings, codec: String? = nil, rules: [DecodeAsRule]
    ) {
      self.codecs = codecs
      self.path = path
      self.target = target
      self.speed = speed
      self.countLimit = countLimit
      self.output = output
      self.codec = codec
      self.rules = rules
    }
  }

  private let configuration: Configuration
  private let sockets: ReplaySockets
  private let errors: ReplayErrors
  private let stop: StopFlag
  private let out = OutputWriter()
  private let recorder: LiveRecorder
  private let decoding: LiveDecoding
  private var report: SendReport
  private var captureStart: Double?
  private var clockStart: UInt64 = 0
  private var lastDue: UInt64 = 0
  private var sent = 0
  private(set) var skippedStreams = 0

  package init(configuration: Configuration, sockets: ReplaySockets, errors: ReplayErrors, stop: StopFlag) {
    self.configuration = configuration
    self.sockets = sockets
    self.errors = errors
    self.stop = stop
    let sink = configuration.output.makeSink(out: out, codecs: configuration.codecs)
    recorder = LiveRecorder(inner: sink, out: out, codecs: configuration.codecs, countLimit: nil)
    decoding = LiveDecoding(
      router: PayloadRouter(
        rules: configuration.rules, forcedCodec: configuration.codec, codecs: configuration.codecs),
      keepPayload: sink?.wantsPayload ?? false)
    let pace = configuration.speed.map { "at \(JSONWriter.formatNumber($0))x" } ?? "as fast as possible"
    report = SendReport(target: configuration.target.display, steps: ["\(configuration.path) \(pace)"])
  }

  /// Reads and sends; returns the exit status.
  package func run(reader: PcapFileReader) -> Int32 {
    let decoder = PacketDecoder()
    var end = ReadEnd.endOfFile
    end = reader.read { record in
      guard !stop.isSet else { return reader.stop() }
      decoder.decode(record) { event in handle(event) }
    }
    if !stop.isSet { decoder.finish { handle($0) } }
    recorder.finish(name: configuration.path)
    report.stopReason = stop.reason ?? "the end of the capture"
    if skippedStreams > 0 {
      report.notes.append("skipped \(skippedStreams) TCP segments with data (replay sends UDP payloads only)")
    }
    if let refused = errors.summary { report.notes.append(refused) }
    report.notes += sockets.notes
    report.write(options: configuration.output, out: out)
    out.flush()
    if case .damaged(let afterFrame, _, let reason) = end {
      OutputWriter.standardError.line(
        "pktbench: \(configuration.path): the file is damaged after record \(afterFrame): \(reason)")
      return 1
    }
    return errors.failed ? 1 : 0
  }

  private func handle(_ event: TransportEvent) {
    switch event {
    case .datagram(let frame, let time, let source, let destination, let payload, _):
      guard !stop.isSet else { return }
      send(payload, frame: frame, time: time, source: source, destination: destination)
      if let limit = configuration.countLimit, sent >= limit { stop.stop("--count \(limit)") }
    case .streamData:
      skippedStreams += 1
    default:
      break
    }
  }

  private func send(
    _ payload: UnsafeRawBufferPointer, frame: Int, time: Double, source: Endpoint, destination: Endpoint
  ) {
    let due: UInt64
    if let captureStart {
      let offset = configuration.speed.map { max(0, time - captureStart) / $0 } ?? 0
      // A record earlier than the one before it (clock steps in the capture) leaves at once.
      due = max(lastDue, clockStart + UInt64(offset * 1e9))
    } else {
      captureStart = time
      clockStart = monotonicNanoseconds()
      due = clockStart
    }
    lastDue = due
    // A new sender's socket is made before the wait, not after it.
    guard let channel = sockets.channel(for: source), sleep(until: due) else { return }
    let now = monotonicNanoseconds()
    channel.writeAndFlush(channel.allocator.buffer(bytes: payload), promise: nil)
    sent += 1
    report.sent(step: 0, at: now, latenessNanoseconds: Int64(now) - Int64(due))

    var record = DecodedRecord(
      frame: frame, time: LiveClock.now(), transport: "udp", source: EndpointText.of(channel.localAddress),
      destination: configuration.target.display.replacingOccurrences(of: "udp://", with: ""),
      payloadLength: payload.count)
    // Route by the capture's ports: the protocols' well-known ports still apply.
    record.sourcePort = source.port
    record.destinationPort = destination.port
    decoding.decode(payload, carrier: .udp, into: &record)
    record.extra = [
      .init("direction", .string("sent")),
      .init("capture_time", .number(time)),
      .init("capture_src", .string(source.description)),
      .init("capture_dst", .string(destination.description)),
      .init("lateness_ms", .number((Double(max(0, Int64(now) - Int64(due))) / 1e3).rounded() / 1e3)),
    ]
    recorder.emit(record, counts: false)
  }

  /// Sleeps until the monotonic deadline in slices, so Ctrl-C is noticed
  /// within 100 ms even across a long silence. False when stopped.
  private func sleep(until deadline: UInt64) -> Bool {
    while true {
      if stop.isSet { return false }
      let now = monotonicNanoseconds()
      guard now < deadline else { return true }
      let slice = min(deadline - now, 100_000_000)
      var request = timespec(tv_sec: Int(slice / 1_000_000_000), tv_nsec: Int(slice % 1_000_000_000))
      var remaining = timespec()
      _ = nanosleep(&request, &remaining)
    }
  }
}

/// Socket errors seen on the event loop, for the replaying thread to report.
package final class ReplayErrors: @unchecked Sendable {
  private let lock = NSLock()
  private var refused = 0
  private var fatal: String?

  package init() {}

  package func add(_ error: Error, target: String) {
    lock.lock()
    defer { lock.unlock() }
    if SocketFailure.errnoCode(error) == ECONNREFUSED {
      refused += 1
      if refused == 1 {
        OutputWriter.standardError.line(
          "pktbench: \(target): connection refused (nothing listens there); still sending")
      }
    } else if fatal == nil {
      fatal = SocketFailure.connect(error, what: target)
      OutputWriter.standardError.line("pktbench: \(fatal ?? "")")
    }
  }

  package var failed: Bool {
    lock.lock()
    defer { lock.unlock() }
    return refused > 0 || fatal != nil
  }

  package var summary: String? {
    lock.lock()
    defer { lock.unlock() }
    guard refused > 0 else { return fatal }
    return "the destination refused \(refused) datagram\(refused == 1 ? "" : "s") (ICMP port unreachable)"
  }
}

/// Reports the replay socket's errors.
final class ReplayErrorHandler: ChannelInboundHandler {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>

  private let errors: ReplayErrors
  private let target: String

  package init(errors: ReplayErrors, target: String) {
    self.errors = errors
    self.target = target
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    errors.add(error, target: target)
  }
}
