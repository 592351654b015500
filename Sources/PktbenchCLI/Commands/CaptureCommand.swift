import ArgumentParser
import PacketCapture
import PacketDecode
import PacketKit
import PacketLive

/// `pktbench capture -i IFACE [-w FILE.pcapng] [BPF…]`: libpcap live
/// capture, decoded as `decode` decodes a file.
struct CaptureCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "capture",
      abstract: "Capture live traffic with libpcap and decode it as it arrives; optionally record pcapng.",
      discussion: """
        Needs the privilege to capture: run as root, or once:
          sudo setcap cap_net_raw,cap_net_admin=eip $(which pktbench)
        Frame numbers are those of the -w file. --count counts decoded \
        application messages.

        """
          + HelpExamples.text(
            "capture",
            generic: [
              "pktbench capture -i any -w field.pcapng   # record while decoding (or -q)",
              "pktbench capture -i lo -c 20 udp port 5005",
              "pktbench capture -D                       # list interfaces",
            ]))
  }

  @Option(name: [.customShort("i"), .customLong("interface")], help: "Interface to capture on (any: all).")
  var interface = "any"

  @Option(help: "BPF filter, tcpdump syntax, applied in the kernel (or as words after the options).")
  var filter: String?

  @Argument(help: "A BPF expression, as tcpdump takes it after its options (udp port 5005).")
  var expression: [String] = []

  /// `--filter` and the words after the options, both kept.
  var bpf: String? {
    TcpdumpArguments.combined(filter, expression.isEmpty ? nil : expression.joined(separator: " "))
  }

  @Option(
    name: [.customShort("w"), .customLong("write")],
    help: "Also write every packet to this pcapng file (- for stdout).")
  var write: String?

  @Option(
    name: [.customShort("s"), .customLong("snaplen")],
    help: "Bytes kept of each packet; 0 for the most (262144), as tcpdump -s 0.")
  var snaplen: Int32 = Self.largestSnaplen

  /// tcpdump's MAXIMUM_SNAPLEN, what its `-s 0` means.
  static let largestSnaplen: Int32 = 262_144

  @Flag(name: .customShort("n"), help: "Accepted for tcpdump's sake: pktbench never resolves names.")
  var numeric = false

  @Flag(help: "Put the interface in promiscuous mode.")
  var promiscuous = false

  @Flag(name: [.customShort("D"), .customLong("list-interfaces")], help: "List the interfaces and exit.")
  var listInterfaces = false

  @OptionGroup var routing: RoutingOptions
  @OptionGroup var limits: LiveLimitOptions
  @OptionGroup var output: LiveOutputOptions

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help:
      "Show only the messages this display filter keeps (\(RecordFilter.syntax)); --count and --stats count them; -w still records every packet."
  )
  var displayFilter: String?

  @OptionGroup var spec: SpecOption

  mutating func validate() throws {
    if snaplen == 0 { snaplen = Self.largestSnaplen }
    if snaplen < 64 { throw ValidationError("--snaplen must be 0 (the most) or at least 64") }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    if listInterfaces {
      let out = OutputWriter()
      do {
        for interface in try CaptureInterface.all() {
          var notes: [String] = []
          if interface.isLoopback { notes.append("loopback") }
          if !interface.isUp { notes.append("down") }
          if let description = interface.description { notes.append(description) }
          out.line(interface.name + (notes.isEmpty ? "" : "  (\(notes.joined(separator: ", ")))"))
        }
      } catch {
        throw CommandFailure(error.text, status: ExitStatus.failed)
      }
      out.flush()
      return
    }
    let rules = try routing.rules(codecs: codecs)
    let recordFilter = try RecordFilter.compile(displayFilter, codecs: codecs)
    let capture: LiveCapture
    do {
      capture = try LiveCapture(interface: interface, snapshotLength: snaplen, promiscuous: promiscuous)
      if let bpf { try capture.setFilter(bpf) }
    } catch {
      // A filter or interface name that is wrong is the command line's
      // fault; permission and a down interface are the machine's.
      let usage: Bool
      switch error.kind {
      case .badFilter, .noSuchInterface: usage = true
      default: usage = false
      }
      throw CommandFailure(error.text, status: usage ? ExitStatus.usage : ExitStatus.failed)
    }
    var writer: PcapngWriter?
    if let write {
      do {
        writer = try PcapngWriter(
          path: write, linkType: capture.linkType, snapshotLength: Int(capture.snapshotLength),
          interfaceName: interface)
      } catch {
        throw CommandFailure(error.text, status: ExitStatus.output)
      }
    }
    var settings = output.settings
    // The pcapng stream owns stdout.
    if write == "-" { settings.quiet = true }
    let out = OutputWriter(descriptor: write == "-" ? 2 : 1)
    let sink = settings.makeSink(out: out, codecs: codecs)
    let recorder = LiveRecorder(
      inner: sink, out: out, codecs: codecs, countLimit: limits.count, displayFilter: recordFilter)
    let pipeline = CapturePipeline(
      router: try routing.router(codecs: codecs), rules: rules, sink: recorder)
    let stop = StopFlag()
    recorder.onLimitReached = { stop.stop("--count \(limits.count ?? 0)") }
    let signalled = StopFlag()
    let signals = StopSignals {
      signalled.stop($0)
      stop.stop($0)
    }

    var said = "pktbench: capturing on \(interface) (\(LinkType.name(capture.linkType)))"
    if let bpf { said += ", filter '\(bpf)'" }
    if let write { said += ", writing \(write == "-" ? "pcapng to stdout" : write)" }
    if let warning = capture.activationWarning { said += "; libpcap: \(warning)" }
    OutputWriter.standardError.line(said)

    let started = monotonicNanoseconds()
    let startedWall = LiveClock.now()
    let deadline = limits.duration.map { started + $0.nanoseconds }
    var failure: String?
    while !stop.isSet {
      do {
        try capture.poll(timeoutMilliseconds: 100) { record, nanoseconds in
          guard !stop.isSet, failure == nil else { return }
          if let writer {
            do throws(CaptureError) {
              try writer.write(
                timeNanoseconds: nanoseconds, data: record.data, originalLength: record.originalLength)
            } catch {
              failure = error.text
            }
          }
          pipeline.process(record)
        }
        try writer?.flush()
      } catch let error as LiveCaptureError {
        failure = error.text
      } catch let error as CaptureError {
        failure = error.text
      }
      if let failure {
        stop.stop("an error")
        OutputWriter.standardError.line("pktbench: \(failure)")
      }
      if let deadline, monotonicNanoseconds() >= deadline {
        stop.stop("--duration \(DurationText.of(limits.duration?.seconds ?? 0))")
      }
    }
    withExtendedLifetime(signals) {}
    pipeline.finish(readEnd: .endOfFile)
    if let writer {
      do {
        // The file records when the capture ended, so a stream that stopped
        // before it can be told from one the capture cut off.
        let statistics = capture.statistics
        try writer.close(
          startNanoseconds: UInt64(startedWall * 1e9), endNanoseconds: UInt64(LiveClock.now() * 1e9),
          received: statistics.map { UInt64($0.received) }, dropped: statistics.map { UInt64($0.dropped) })
      } catch {
        failure = failure ?? error.text
        OutputWriter.standardError.line("pktbench: \(error.text)")
      }
    }
    recorder.finish(name: interface)
    if settings.stats {
      let elapsed = Double(monotonicNanoseconds() - started) / 1e9
      var summary = LiveSummary(
        name: "capture \(interface)", stopReason: stop.reason ?? "end", elapsedSeconds: elapsed,
        recorder: recorder)
      summary.notes.append("packets captured: \(capture.packetsDelivered)")
      if let statistics = capture.statistics {
        summary.notes.append(
          "kernel: \(statistics.received) received, \(statistics.dropped) dropped, "
            + "\(statistics.interfaceDropped) dropped by the interface")
      }
      if let writer { summary.notes.append("written: \(writer.packetsWritten) packets to \(writer.path)") }
      summary.write(options: settings, out: out)
    }
    out.flush()
    if failure != nil { throw ExitCode(1) }
    // As every command stopped by a signal: what was captured is whole, and
    // a script can still tell the stop from --count or --duration.
    if signalled.isSet { throw ExitCode(ExitStatus.interrupted) }
  }
}
