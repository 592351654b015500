import ArgumentParser
import NIOCore
import NIOPosix
import PacketDecode
import PacketKit

/// A listening run, for `listen` and `emulate`: binds, prints where,
/// stops on Ctrl-C, `--count` or `--duration`, and exits with the status.
struct ListenRun {
  var configuration: ListenConfiguration
  var maxMessage: Int
  var duration: DurationArgument?

  /// How long a signal's stop may take (closing every connection takes at
  /// most `WebSocketConnectionHandler.closeGraceSeconds`).
  static let stopPatienceSeconds = 5.0

  func run(note: String) throws {
    let address = configuration.address
    let settings = configuration
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let done = loop.makePromise(of: Int32.self)
    let session = try loop.submit {
      NIOLoopBound(ListenSession(configuration: settings, loop: loop, done: done), eventLoop: loop)
    }.wait()
    // The event loop writes the output: blocked on a pipe nobody reads, it
    // cannot stop, so a signal ends the run after a few seconds regardless.
    let signals = StopSignals(patience: Self.stopPatienceSeconds) { name in
      loop.execute { session.value.stop(name, status: ExitStatus.interrupted) }
    }

    let channels: [Channel]
    do {
      switch address.kind {
      case .udp:
        channels = try UDPListener.bind(
          group: group, address: address, session: session, receiveBuffer: configuration.receiveBufferBytes)
      case .ws:
        channels = try WebSocketListener.bind(
          group: group, address: address, session: session, maxMessageBytes: maxMessage,
          tls: configuration.server.tls)
      }
    } catch {
      // Nothing will stop the session now: complete its promise before it goes away.
      done.fail(error)
      throw error
    }
    let bound = channels.compactMap { EndpointText.of($0.localAddress) }.joined(separator: ", ")
    loop.execute {
      for channel in channels { session.value.add(channel) }
    }
    let kind = configuration.server.tls == nil ? address.kind.rawValue : "wss"
    OutputWriter.standardError.line("pktbench: listening on \(kind) \(bound)\(note)")

    if let duration {
      loop.scheduleTask(in: .nanoseconds(Int64(duration.nanoseconds))) {
        session.value.stop("--duration \(DurationText.of(duration.seconds))")
      }
    }
    let status = try done.futureResult.wait()
    withExtendedLifetime(signals) {}
    if status != 0 { throw ExitCode(status) }
  }
}
