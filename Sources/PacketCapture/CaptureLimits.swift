/// Bounds that keep decoding a hostile or huge capture in fixed memory.
/// Times are capture time (record timestamps), never the wall clock, so a
/// capture decodes the same however fast it is read.
public struct CaptureLimits: Sendable, Hashable {
  /// Bytes held for incomplete IP datagrams, over all of them (plus a fixed
  /// cost per fragment, so floods of tiny fragments count too).
  public var maxFragmentBytes: Int
  /// Incomplete IP datagrams held at once; the oldest is dropped first.
  public var maxPendingFragmentedDatagrams: Int
  /// Seconds after its first fragment that an incomplete datagram is dropped.
  public var fragmentTimeout: Double
  /// Out-of-order TCP bytes held per direction before the hole in front of
  /// them is declared a gap.
  public var maxBufferedBytesPerDirection: Int
  /// Out-of-order TCP bytes held over all connections.
  public var maxBufferedBytesTotal: Int
  /// TCP connections tracked at once; the longest idle are closed first.
  public var maxConnections: Int
  /// Seconds without a segment after which a TCP connection is closed.
  public var idleTimeout: Double

  public init(
    maxFragmentBytes: Int = 4 << 20, maxPendingFragmentedDatagrams: Int = 1024,
    fragmentTimeout: Double = 60, maxBufferedBytesPerDirection: Int = 1 << 20,
    maxBufferedBytesTotal: Int = 64 << 20, maxConnections: Int = 16_384, idleTimeout: Double = 600
  ) {
    self.maxFragmentBytes = maxFragmentBytes
    self.maxPendingFragmentedDatagrams = maxPendingFragmentedDatagrams
    self.fragmentTimeout = fragmentTimeout
    self.maxBufferedBytesPerDirection = maxBufferedBytesPerDirection
    self.maxBufferedBytesTotal = maxBufferedBytesTotal
    self.maxConnections = maxConnections
    self.idleTimeout = idleTimeout
  }

  public static let `default` = CaptureLimits()
}
