import CPcap

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a pcap or pcapng file record by record through libpcap, streaming:
/// only the current record is in memory.
public final class PcapFileReader {
  /// The path given, or "-" for standard input.
  public let path: String
  private let handle: OpaquePointer
  private var filter: UnsafeMutablePointer<bpf_program>?
  private let nanosecondStamps: Bool
  /// Records read so far, including those a filter skipped.
  public private(set) var recordsRead = 0
  private var stopRequested = false
  /// True when the last `read` ended because `stop()` was called.
  public private(set) var wasStopped = false

  /// Opens `path` ("-" for standard input). Fails with one line that says
  /// what is wrong: missing file, permission, not a capture file.
  public init(path: String) throws(CaptureError) {
    self.path = path
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    let precision = UInt32(PCAP_TSTAMP_PRECISION_NANO)
    let opened: OpaquePointer?
    if path == "-" {
      // fdopen rather than the C `stdin` global, which Swift 6 treats as shared mutable state.
      guard let input = fdopen(0, "rb") else {
        throw CaptureError("cannot read standard input")
      }
      opened = pcap_fopen_offline_with_tstamp_precision(input, precision, &errorBuffer)
      if opened == nil {
        throw CaptureError("cannot read standard input: \(string(fromCBuffer: errorBuffer))")
      }
    } else {
      opened = pcap_open_offline_with_tstamp_precision(path, precision, &errorBuffer)
    }
    guard let opened else {
      throw CaptureFileCheck.openFailure(
        path: path, libpcapMessage: string(fromCBuffer: errorBuffer))
    }
    handle = opened
    nanosecondStamps = pcap_get_tstamp_precision(opened) == Int32(PCAP_TSTAMP_PRECISION_NANO)
  }

  deinit {
    if let filter {
      pcap_freecode(filter)
      filter.deallocate()
    }
    pcap_close(handle)
  }

  /// The file's link type as libpcap reports it (a DLT_ value: LINKTYPE_RAW
  /// files report 12 on Linux, 14 on OpenBSD).
  public var linkType: Int32 { pcap_datalink(handle) }

  public var snapshotLength: Int32 { pcap_snapshot(handle) }

  /// Compiles a BPF expression for this file's link type; later reads skip
  /// records it rejects (they still count in frame numbers).
  public func setFilter(_ bpf: String) throws(CaptureError) {
    let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)
    program.initialize(to: bpf_program())
    guard pcap_compile(handle, program, bpf, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
      let message = String(cString: pcap_geterr(handle))
      program.deallocate()
      throw CaptureError("invalid filter '\(bpf)': \(message)")
    }
    if let filter {
      pcap_freecode(filter)
      filter.deallocate()
    }
    filter = program
  }

  /// Makes a `read` in progress return after the current record.
  public func stop() {
    stopRequested = true
  }

  /// Calls `body` for each record (that passes the filter) and returns how
  /// reading ended. A second call continues where the first stopped.
  public func read(_ body: (CaptureRecord) -> Void) -> ReadEnd {
    let link = linkType
    let divisor = nanosecondStamps ? 1e9 : 1e6
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var bytes: UnsafePointer<UInt8>?
    stopRequested = false
    wasStopped = false
    while !stopRequested {
      let status = pcap_next_ex(handle, &header, &bytes)
      switch status {
      case 1:
        recordsRead += 1
        guard let header, let bytes else { continue }
        if let filter, pcap_offline_filter(filter, header, bytes) == 0 { continue }
        let stamp = header.pointee.ts
        let captured = Int(header.pointee.caplen)
        body(
          CaptureRecord(
            frame: recordsRead, time: Double(stamp.tv_sec) + Double(stamp.tv_usec) / divisor,
            linkType: link, capturedLength: captured, originalLength: Int(header.pointee.len),
            data: UnsafeRawBufferPointer(start: bytes, count: captured)))
      case 0:
        // Only live captures time out; an offline read never returns 0.
        continue
      case PCAP_ERROR_BREAK:
        return .endOfFile
      default:
        return .damaged(
          afterFrame: recordsRead, byteOffset: fileOffset(),
          reason: Self.explain(String(cString: pcap_geterr(handle))))
      }
    }
    wasStopped = true
    return .endOfFile
  }

  private func fileOffset() -> Int? {
    guard let file = pcap_file(handle) else { return nil }
    let offset = ftell(file)
    return offset >= 0 ? Int(offset) : nil
  }

  /// libpcap reads a pcapng file only while every interface has the first
  /// one's link type; say so plainly, since the file itself is not damaged.
  static func explain(_ message: String) -> String {
    guard message.contains("different from the type of the first interface") else {
      return message
    }
    return "this pcapng file has interfaces with different link types, which libpcap cannot "
      + "read (libpcap: \(message))"
  }
}
