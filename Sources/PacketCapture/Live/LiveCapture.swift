import CPcap

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A live capture on one interface through libpcap: `pcap_create`, immediate
/// mode (each packet is delivered as it arrives, not when a buffer fills),
/// nanosecond timestamps, non-blocking reads.
///
/// `poll` waits on the capture's descriptor for at most a timeout, so the
/// caller's loop comes round often enough to notice Ctrl-C or a deadline.
public final class LiveCapture {
  public let interface: String
  private let handle: OpaquePointer
  private let selectableDescriptor: Int32
  private let nanosecondStamps: Bool
  /// Packets delivered so far (after the filter).
  public private(set) var packetsDelivered = 0
  /// libpcap's own warning from activation (e.g. promiscuous mode not supported).
  public private(set) var activationWarning: String?

  /// Opens and activates `interface` ("any" captures on all of them).
  /// Fails with one line: missing privileges (and how to get them), an
  /// unknown interface (and the ones that exist), or libpcap's reason.
  public init(
    interface: String, snapshotLength: Int32 = 262_144, promiscuous: Bool = false,
    bufferBytes: Int32? = nil
  ) throws(LiveCaptureError) {
    self.interface = interface
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    guard let created = pcap_create(interface, &errorBuffer) else {
      throw LiveCaptureError(
        .other, "cannot capture on '\(interface)': \(string(fromCBuffer: errorBuffer))")
    }
    pcap_set_snaplen(created, snapshotLength)
    pcap_set_promisc(created, promiscuous ? 1 : 0)
    // The timeout only matters where immediate mode is missing; poll() bounds waiting anyway.
    pcap_set_timeout(created, 100)
    pcap_set_immediate_mode(created, 1)
    if let bufferBytes { pcap_set_buffer_size(created, bufferBytes) }
    _ = pcap_set_tstamp_precision(created, Int32(PCAP_TSTAMP_PRECISION_NANO))

    let status = pcap_activate(created)
    if status < 0 {
      let message = String(cString: pcap_geterr(created))
      pcap_close(created)
      throw Self.activationError(status, interface: interface, libpcapMessage: message)
    }
    if status > 0 {
      let message = String(cString: pcap_geterr(created))
      activationWarning = message.isEmpty ? String(cString: pcap_statustostr(status)) : message
    }
    guard pcap_setnonblock(created, 1, &errorBuffer) == 0 else {
      pcap_close(created)
      throw LiveCaptureError(
        .other, "cannot capture on '\(interface)': \(string(fromCBuffer: errorBuffer))")
    }
    handle = created
    selectableDescriptor = pcap_get_selectable_fd(created)
    nanosecondStamps = pcap_get_tstamp_precision(created) == Int32(PCAP_TSTAMP_PRECISION_NANO)
  }

  deinit {
    pcap_close(handle)
  }

  /// The interface's link type (a DLT_ value; "any" gives Linux cooked v2 or v1).
  public var linkType: Int32 { pcap_datalink(handle) }

  public var snapshotLength: Int32 { pcap_snapshot(handle) }

  /// Applies a BPF filter in the kernel: only matching packets are delivered.
  public func setFilter(_ bpf: String) throws(LiveCaptureError) {
    var program = bpf_program()
    guard pcap_compile(handle, &program, bpf, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
      throw LiveCaptureError(
        .badFilter, "invalid filter '\(bpf)': \(String(cString: pcap_geterr(handle)))")
    }
    defer { pcap_freecode(&program) }
    guard pcap_setfilter(handle, &program) == 0 else {
      throw LiveCaptureError(
        .badFilter, "cannot apply filter '\(bpf)': \(String(cString: pcap_geterr(handle)))")
    }
  }

  /// Waits up to `timeoutMilliseconds` for packets, then delivers those that
  /// are ready (at most `limit`), each with its timestamp in nanoseconds since
  /// the Unix epoch. Returns how many were delivered; 0 on a quiet timeout or
  /// an interrupted wait.
  @discardableResult
  public func poll(
    timeoutMilliseconds: Int32, limit: Int = 1024, _ body: (CaptureRecord, UInt64) -> Void
  ) throws(LiveCaptureError) -> Int {
    if selectableDescriptor >= 0 {
      var request = pollfd(fd: selectableDescriptor, events: Int16(POLLIN), revents: 0)
      let ready = Glibc.poll(&request, 1, timeoutMilliseconds)
      if ready < 0 && errno != EINTR {
        throw LiveCaptureError(.other, "waiting for packets failed: \(String(cString: strerror(errno)))")
      }
      if ready <= 0 { return 0 }
    }
    let link = linkType
    let fractionToNanoseconds: UInt64 = nanosecondStamps ? 1 : 1000
    var delivered = 0
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var bytes: UnsafePointer<UInt8>?
    while delivered < limit {
      let status = pcap_next_ex(handle, &header, &bytes)
      if status == 0 { break }
      guard status == 1 else {
        if status == PCAP_ERROR_BREAK { break }
        throw LiveCaptureError(
          .other, "capture on '\(interface)' failed: \(String(cString: pcap_geterr(handle)))")
      }
      guard let header, let bytes else { continue }
      let stamp = header.pointee.ts
      let fraction = UInt64(max(0, Int64(stamp.tv_usec)))
      let nanoseconds =
        UInt64(max(0, Int64(stamp.tv_sec))) &* 1_000_000_000 &+ fraction &* fractionToNanoseconds
      let captured = Int(header.pointee.caplen)
      packetsDelivered += 1
      delivered += 1
      body(
        CaptureRecord(
          frame: packetsDelivered,
          time: Double(stamp.tv_sec) + Double(fraction) / (nanosecondStamps ? 1e9 : 1e6),
          linkType: link, capturedLength: captured, originalLength: Int(header.pointee.len),
          data: UnsafeRawBufferPointer(start: bytes, count: captured)),
        nanoseconds)
    }
    return delivered
  }

  /// libpcap's counters: packets the kernel received and dropped.
  public var statistics: (received: UInt32, dropped: UInt32, interfaceDropped: UInt32)? {
    var stats = pcap_stat()
    guard pcap_stats(handle, &stats) == 0 else { return nil }
    return (stats.ps_recv, stats.ps_drop, stats.ps_ifdrop)
  }

  static func activationError(_ status: Int32, interface: String, libpcapMessage: String)
    -> LiveCaptureError
  {
    let detail = libpcapMessage.isEmpty ? String(cString: pcap_statustostr(status)) : libpcapMessage
    switch status {
    case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED:
      return LiveCaptureError(
        .permissionDenied,
        "no permission to capture on '\(interface)' (\(detail)); \(LiveCaptureError.privilegeHint)")
    case PCAP_ERROR_NO_SUCH_DEVICE:
      let available = (try? CaptureInterface.all()) ?? []
      return LiveCaptureError(
        .noSuchInterface(available: available.map(\.name)),
        "no interface named '\(interface)'; available: \(CaptureInterface.summary(available))")
    case PCAP_ERROR_IFACE_NOT_UP:
      return LiveCaptureError(.interfaceDown, "interface '\(interface)' is down (\(detail))")
    default:
      // Some libpcap builds report EPERM as a plain PCAP_ERROR.
      if detail.contains("Operation not permitted") || detail.contains("ermission") {
        return LiveCaptureError(
          .permissionDenied,
          "no permission to capture on '\(interface)' (\(detail)); \(LiveCaptureError.privilegeHint)")
      }
      return LiveCaptureError(.other, "cannot capture on '\(interface)': \(detail)")
    }
  }
}
