import NIOCore
import NIOPosix
import PacketDecode

/// Hands each datagram to the session. A socket error (an ICMP error
/// reported on the socket, a read failure) is one line; the socket stays open.
final class UDPListenHandler: ChannelInboundHandler {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>

  private let session: ListenSession
  private var reportedErrors: Set<String> = []

  package init(session: ListenSession) {
    self.session = session
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    session.datagram(
      Self.unwrapInboundIn(data), local: context.channel.localAddress, channel: context.channel)
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    let text = SocketFailure.describe(error)
    // The same error repeated (e.g. at 50 Hz) is said once.
    if reportedErrors.insert(text).inserted {
      session.warn("udp socket \(EndpointText.of(context.channel.localAddress) ?? ""): \(text)")
    }
  }
}

/// Binds the UDP sockets of `listen udp:…` (see `ListenerBinding`).
enum UDPListener {
  /// Enough for any UDP payload (65,507 bytes over IPv4, 65,527 over IPv6).
  package static let receiveBufferBytes = 65_536

  package static func bind(
    group: EventLoopGroup, address: ListenAddress, session: NIOLoopBound<ListenSession>,
    receiveBuffer: Int? = nil
  ) throws(CommandFailure) -> [Channel] {
    try ListenerBinding.bind(address) { socketAddress, ipv6Only in
      var bootstrap = DatagramBootstrap(group: group)
        .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: receiveBufferBytes))
        .channelOption(.receivePacketInfo, value: true)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(UDPListenHandler(session: session.value))
          }
        }
      if let receiveBuffer {
        bootstrap = bootstrap.channelOption(
          .socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
      }
      if ipv6Only {
        bootstrap = bootstrap.channelOption(
          ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 1)
      }
      return try bootstrap.bind(to: socketAddress).wait()
    }
  }
}
