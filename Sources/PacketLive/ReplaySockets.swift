import NIOCore
import NIOPosix
import PacketCapture

/// The sockets `replay` sends from: one for everything (`one`, as before),
/// or one per source endpoint of the capture, so a device that tells its
/// peers apart (one that notifies the last writer) sees the capture's
/// senders as separate peers: bound to the capture's own source port
/// (`keep`) or to a free one (`map`). Made on first use, on the replaying
/// thread; at most `limit`, then the rest share the first.
package final class ReplaySockets {
  package enum Mode: String, CaseIterable {
    case one, keep, map
  }

  package static let limit = 256

  private let mode: Mode
  private let group: EventLoopGroup
  private let target: SocketAddress
  private let errors: ReplayErrors
  private let display: String
  private var shared: Channel?
  private var bySource: [Endpoint: Channel] = [:]
  /// Why a socket could not be had, said once.
  package private(set) var notes: [String] = []

  package init(
    mode: Mode, group: EventLoopGroup, target: SocketAddress, errors: ReplayErrors, display: String
  ) {
    self.mode = mode
    self.group = group
    self.target = target
    self.errors = errors
    self.display = display
  }

  /// The first socket, made now so a target that cannot be reached fails before any sending.
  package func open() throws {
    shared = try connect(port: nil)
  }

  /// The socket that sends what `source` sent in the capture.
  package func channel(for source: Endpoint) -> Channel? {
    guard mode != .one else { return shared }
    if let known = bySource[source] { return known }
    guard bySource.count < Self.limit else {
      if notes.isEmpty {
        notes.append("more than \(Self.limit) source endpoints: the rest were sent from one socket")
      }
      return shared
    }
    do {
      let made = try connect(port: mode == .keep ? Int(source.port) : nil)
      bySource[source] = made
      return made
    } catch {
      notes.append("\(source): \(SocketFailure.connect(error, what: "a socket on port \(source.port)"))")
      bySource[source] = shared
      return shared
    }
  }

  package func closeAll() {
    for channel in bySource.values where channel !== shared {
      try? channel.close().wait()
    }
    try? shared?.close().wait()
  }

  private func connect(port: Int?) throws -> Channel {
    let errors = self.errors
    let display = self.display
    var bootstrap = DatagramBootstrap(group: group)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ReplayErrorHandler(errors: errors, target: display))
        }
      }
    if let port {
      bootstrap = bootstrap.channelOption(.socketOption(.so_reuseaddr), value: 1)
      let local = try SocketAddress(ipAddress: target.protocol == .inet6 ? "::" : "0.0.0.0", port: port)
      return try bootstrap.bind(to: local).flatMap { channel in
        channel.connect(to: self.target).map { channel }
      }.wait()
    }
    return try bootstrap.connect(to: target).wait()
  }
}
