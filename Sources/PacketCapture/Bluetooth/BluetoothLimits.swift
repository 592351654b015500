/// Bounds on what the decoder keeps between records, so a capture (or an
/// attacker) that starts frames and never finishes them cannot grow memory.
/// When a bound is hit the decoder drops the oldest or newest state and says
/// so with a `damaged` event.
public struct BluetoothLimits: Sendable, Equatable {
  /// Connections tracked at once; the least recently active is dropped.
  public var maxConnections: Int
  /// Largest L2CAP payload reassembled (its length field allows 65,535).
  public var maxL2CAPPayload: Int
  /// Bytes held for one connection: unfinished L2CAP frames, queued
  /// prepared writes, a long read in progress.
  public var maxBufferedBytesPerConnection: Int
  /// Bytes held across all connections.
  public var maxBufferedBytes: Int
  /// Largest long attribute value (prepared writes, read blobs) assembled.
  public var maxLongValueLength: Int
  /// Prepared writes queued per connection before Execute Write.
  public var maxPreparedWrites: Int
  /// Handle → UUID entries learnt per connection, and in the global map.
  public var maxHandlesPerConnection: Int
  /// Services remembered per connection.
  public var maxServicesPerConnection: Int

  public init(
    maxConnections: Int = 64, maxL2CAPPayload: Int = 65_535,
    maxBufferedBytesPerConnection: Int = 192 * 1024, maxBufferedBytes: Int = 1 << 20,
    maxLongValueLength: Int = 65_535, maxPreparedWrites: Int = 1024,
    maxHandlesPerConnection: Int = 4096, maxServicesPerConnection: Int = 256
  ) {
    self.maxConnections = maxConnections
    self.maxL2CAPPayload = maxL2CAPPayload
    self.maxBufferedBytesPerConnection = maxBufferedBytesPerConnection
    self.maxBufferedBytes = maxBufferedBytes
    self.maxLongValueLength = maxLongValueLength
    self.maxPreparedWrites = maxPreparedWrites
    self.maxHandlesPerConnection = maxHandlesPerConnection
    self.maxServicesPerConnection = maxServicesPerConnection
  }

  public static let `default` = BluetoothLimits()
}

/// Counts of what went by, including what is counted rather than decoded
/// (SCO, ISO, L2CAP channels other than ATT, advertising PDUs, monitor
/// records other than HCI traffic).
public struct BluetoothStatistics: Sendable, Equatable {
  public var records = 0
  public var hciCommands = 0
  public var hciEvents = 0
  public var aclPackets = 0
  public var scoPackets = 0
  public var isoPackets = 0
  /// Complete L2CAP frames by channel.
  public var l2capATT = 0
  public var l2capSignalling = 0
  public var l2capSMP = 0
  public var l2capOther = 0
  public var attPDUs = 0
  public var attValues = 0
  public var advertisingPDUs = 0
  public var llDataPDUs = 0
  public var llEmptyPDUs = 0
  public var llControlPDUs = 0
  /// Sniffed data PDUs dropped as retransmissions (same sequence number and
  /// bytes as the sender's previous PDU).
  public var llRetransmissions = 0
  public var llCRCErrors = 0
  public var monitorOther = 0
  public var damaged = 0
  public var undecoded = 0

  public init() {}
}
