import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `send udp://HOST:PORT`: a connected UDP socket, so the kernel reports
/// ICMP errors (nothing listening, no route) on it, and a device's answers
/// (a device's telemetry) come back through it and are decoded.
final class UDPSendTransport: SendTransport {
  private let channel: Channel
  private let session: SendSession
  let localEndpoint: String?
  let remoteEndpoint: String?
  private(set) var refused = 0
  private var saidRefused = false

  var transportName: String { "udp" }
  var carrier: PayloadRouter.Carrier { .udp }

  init(channel: Channel, session: SendSession) {
    self.channel = channel
    self.session = session
    localEndpoint = EndpointText.of(channel.localAddress)
    remoteEndpoint = EndpointText.of(channel.remoteAddress)
  }

  func send(_ bytes: [UInt8]) {
    let promise = channel.eventLoop.makePromise(of: Void.self)
    promise.futureResult.assumeIsolated().whenFailure { error in
      self.failed(error)
    }
    channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: promise)
  }

  func close(_ done: @escaping () -> Void) {
    if refused > 0 {
      session.noteFailure(
        "the destination refused \(refused) datagram\(refused == 1 ? "" : "s") (ICMP port unreachable: "
          + "nothing listened)")
    }
    channel.close().assumeIsolated().whenComplete { _ in done() }
  }

  /// ECONNREFUSED (an ICMP port unreachable for an earlier datagram) is said
  /// once and sending goes on: the receiver may start later, and a
  /// keep-alive must not stop. No route to the host stops the run.
  func failed(_ error: Error) {
    let target = session.configuration.target.display
    switch SocketFailure.errnoCode(error) {
    case ECONNREFUSED:
      refused += 1
      if !saidRefused {
        saidRefused = true
        OutputWriter.standardError.line(
          "pktbench: \(target): connection refused (nothing listens there); still sending")
      }
    case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
      session.stop("an error", failure: SocketFailure.connect(error, what: target))
    default:
      if channel.isActive || !(error is ChannelError) {
        session.stop("an error", failure: SocketFailure.connect(error, what: target))
      }
    }
  }
}

/// Hands datagrams coming back to the session, and socket errors to the transport.
final class UDPSendHandler: ChannelInboundHandler {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>

  private let session: SendSession
  var transport: UDPSendTransport?

  init(session: SendSession) {
    self.session = session
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var envelope = Self.unwrapInboundIn(data)
    let bytes = envelope.data.readBytes(length: envelope.data.readableBytes) ?? []
    session.received(bytes)
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    transport?.failed(error)
  }
}

enum UDPSender {
  /// Opens a UDP socket connected to the target and hands it to the session.
  static func connect(
    group: EventLoopGroup, target: TargetURL, session: NIOLoopBound<SendSession>
  ) throws(CommandFailure) {
    let address: SocketAddress
    do {
      address = try SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
    } catch {
      throw CommandFailure("\(target.display): cannot resolve host '\(target.host)'", status: 1)
    }
    do {
      let channel = try DatagramBootstrap(group: group)
        .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(UDPSendHandler(session: session.value))
          }
        }
        .connect(to: address).wait()
      try channel.eventLoop.submit {
        let transport = UDPSendTransport(channel: channel, session: session.value)
        let handler = try channel.pipeline.syncOperations.handler(type: UDPSendHandler.self)
        handler.transport = transport
        session.value.start(transport)
      }.wait()
    } catch {
      throw CommandFailure(SocketFailure.connect(error, what: target.display), status: 1)
    }
  }
}
