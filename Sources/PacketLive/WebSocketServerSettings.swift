import NIOSSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The server guards as a plain value for the event loop.
package struct WebSocketServerSettings: Sendable {
  package static let defaultMaxBuffered = 64 << 20
  package static let defaultHeadTimeoutSeconds = 10.0
  package static let defaultIdleTimeoutSeconds = 300.0

  /// The process's open-file limit (`ulimit -n`, the soft limit): every
  /// connection takes one descriptor.
  package static var openFileLimit: Int {
    var limit = rlimit()
    #if os(Linux)
      let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
      return 1 << 20
    }
    return Int(clamping: limit.rlim_cur)
  }

  /// The open-file limit less 64 for the process's own (standard streams,
  /// the event loop's, the listening sockets, files it writes), so that a
  /// client past the limit is refused by pktbench, with a line, rather
  /// than left unaccepted by the kernel.
  package static var defaultMaxConnections: Int { max(1, openFileLimit - 64) }

  package var maxBufferedBytes = defaultMaxBuffered
  package var headTimeoutNanoseconds = UInt64(defaultHeadTimeoutSeconds * 1e9)
  package var idleTimeoutNanoseconds = UInt64(defaultIdleTimeoutSeconds * 1e9)
  package var maxConnections = defaultMaxConnections
  /// wss: the server's TLS context; nil serves plain ws.
  package var tls: NIOSSLContext?

  package init(
    maxBufferedBytes: Int = defaultMaxBuffered,
    headTimeoutNanoseconds: UInt64 = UInt64(defaultHeadTimeoutSeconds * 1e9),
    idleTimeoutNanoseconds: UInt64 = UInt64(defaultIdleTimeoutSeconds * 1e9),
    maxConnections: Int = defaultMaxConnections, tls: NIOSSLContext? = nil
  ) {
    self.maxBufferedBytes = maxBufferedBytes
    self.headTimeoutNanoseconds = headTimeoutNanoseconds
    self.idleTimeoutNanoseconds = idleTimeoutNanoseconds
    self.maxConnections = maxConnections
    self.tls = tls
  }
}
