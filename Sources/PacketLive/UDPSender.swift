import NIOCore
import NIOPosix
import PacketDecode

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `send udp://HOST:PORT`: a connected UDP socket, so the kernel reports
/// ICMP errors (nothing listening, no route) on it, and a device's answers
/// (a device's telemetry) come back through it and are decoded.
///
/// Datagrams are written with send(2) on the socket itself rather than
/// through NIO, whose datagram channel closes on an ECONNREFUSED write: a
/// device that is still booting would end the run. NIO still reads.
final class UDPSendTransport: SendTransport {
  private let channel: Channel
  private let socket: CInt
  private let session: SendSession
  let localEndpoint: String?
  let remoteEndpoint: String?
  /// ICMP port unreachable answers the kernel reported (one per datagram
  /// refused, as long as each is read before the next arrives).
  package private(set) var refused = 0
  private var saidRefused = false

  var transportName: String { "udp" }
  package var carrier: PayloadRouter.Carrier { .udp }

  package init(channel: Channel, socket: CInt, session: SendSession, remote: SocketAddress) {
    self.channel = channel
    self.socket = socket
    self.session = session
    localEndpoint = EndpointText.of(channel.localAddress)
    remoteEndpoint = EndpointText.of(remote)
  }

  /// True when the kernel took the datagram. An ECONNREFUSED from send(2)
  /// is the refusal of an earlier datagram (the kernel keeps one pending
  /// error and returns it instead of sending), so it is counted and this
  /// datagram is sent again.
  package func send(_ bytes: [UInt8]) -> Bool {
    guard channel.isActive else { return false }
    for _ in 0..<2 {
      let result = bytes.withUnsafeBytes { POSIXSocket.send(socket, $0) }
      if result >= 0 { return true }
      let code = errno
      if code == EINTR { continue }
      failed(IOError(errnoCode: code, reason: "send"))
      if code != ECONNREFUSED { return false }
    }
    return false
  }

  package func close(_ done: @escaping () -> Void) {
    // The refusal of the last datagram may be pending on the socket still.
    var code: CInt = 0
    var length = socklen_t(MemoryLayout<CInt>.size)
    if channel.isActive, getsockopt(socket, SOL_SOCKET, SO_ERROR, &code, &length) == 0, code == ECONNREFUSED {
      refused += 1
    }
    session.noteRefused(refused)
    channel.close().assumeIsolated().whenComplete { _ in done() }
  }

  /// ECONNREFUSED (an ICMP port unreachable for an earlier datagram) is said
  /// once and sending goes on: the receiver may start later, and a
  /// keep-alive must not stop. No route to the host stops the run.
  package func failed(_ error: Error) {
    let target = session.configuration.target.display
    switch SocketFailure.errnoCode(error) {
    case ECONNREFUSED:
      refused += 1
      if !saidRefused {
        saidRefused = true
        OutputWriter.standardError.line(
          "pktbench: \(target): connection refused (nothing listens there); still sending")
      }
    case EAGAIN, EWOULDBLOCK, ENOBUFS:
      // The socket's send buffer is full: this datagram is not sent; the report counts it.
      break
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
  package var transport: UDPSendTransport?

  package init(session: SendSession) {
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

package enum UDPSender {
  /// Opens a UDP socket connected to the target and hands it to the session.
  package static func connect(
    group: EventLoopGroup, target: TargetURL, session: NIOLoopBound<SendSession>
  ) throws(CommandFailure) {
    let address: SocketAddress
    do {
      address = try SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
    } catch {
      throw CommandFailure("\(target.display): cannot resolve host '\(target.host)'", status: 1)
    }
    do {
      let socket = try connectedSocket(to: address)
      let channel: Channel
      do {
        channel = try DatagramBootstrap(group: group)
          .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
          .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
              try channel.pipeline.syncOperations.addHandler(UDPSendHandler(session: session.value))
            }
          }
          .withBoundSocket(socket).wait()
      } catch {
        POSIXSocket.close(socket)
        throw error
      }
      try channel.eventLoop.submit {
        let transport = UDPSendTransport(
          channel: channel, socket: socket, session: session.value, remote: address)
        let handler = try channel.pipeline.syncOperations.handler(type: UDPSendHandler.self)
        handler.transport = transport
        session.value.start(transport)
      }.wait()
    } catch {
      throw CommandFailure(SocketFailure.connect(error, what: target.display), status: 1)
    }
  }

  /// A UDP socket connect(2)ed to `address`: the kernel then reports the
  /// peer's ICMP errors on it and delivers only the peer's datagrams.
  static func connectedSocket(to address: SocketAddress) throws -> CInt {
    let socket = POSIXSocket.datagram(family: CInt(address.protocol.rawValue))
    guard socket >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
    let result = address.withSockAddr { pointer, size in
      POSIXSocket.connect(socket, pointer, socklen_t(size))
    }
    guard result == 0 else {
      let code = errno
      POSIXSocket.close(socket)
      throw IOError(errnoCode: code, reason: "connect")
    }
    return socket
  }
}
