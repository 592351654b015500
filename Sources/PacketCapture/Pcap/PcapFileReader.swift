import CPcap

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a pcap or pcapng file record by record through libpcap, streaming:
/// only the current record is in memory.
///
/// libpcap refuses pcapng files whose interfaces have different link types;
/// for those (when the input is a file, not a pipe) reading continues with
/// `PcapngFallbackReader`, and each record carries its own link type.
public final class PcapFileReader {
  /// The path given, or "-" for standard input.
  public let path: String
  private let handle: OpaquePointer
  private var filter: UnsafeMutablePointer<bpf_program>?
  private var filterExpression: String?
  /// Set for a PKTAP file with a filter: it runs on the packet inside.
  private var filtersInnerPackets = false
  private var fallback: PcapngFallbackReader?
  /// Filters compiled per link type for the fallback reader; nil where the
  /// expression does not compile for that link type (nothing matches).
  private var fallbackFilters: [Int32: UnsafeMutablePointer<bpf_program>?] = [:]
  private let nanosecondStamps: Bool
  /// For a pcap file read from a path: finds records in the file itself,
  /// for the two cases where libpcap does not say enough (nil for pcapng
  /// and standard input).
  private var walker: PcapRecordWalker?
  /// Read from a path, so it can be read again on its own (not standard
  /// input, not bytes in memory: those keep libpcap's offsets).
  private let isFile: Bool
  /// The file's snapshot length, for spotting records libpcap cut to it.
  private let fileSnapLength: Int
  /// Where records longer than the snapshot length are read again in full.
  private var longRecord: [UInt8] = []
  /// The bytes behind an in-memory capture, or a file's read buffer; freed
  /// after libpcap closes the FILE.
  private var memory: UnsafeMutableRawPointer?
  /// Told of each record that holds more bytes than the file's snapshot
  /// length (read in full, as tshark reads it), before the record itself.
  public var onNotice: ((CaptureNotice) -> Void)?
  /// Records read so far, including those a filter skipped.
  public private(set) var recordsRead = 0
  private var stopRequested = false
  /// True when the last `read` ended because `stop()` was called.
  public private(set) var wasStopped = false
  /// False: `read` hands over every record and the caller asks `passes`
  /// (a merge of files numbers every record in merged order, as mergecap
  /// does, before filtering).
  public var filtersOnRead = true

  /// Opens `path` ("-" for standard input). Fails with one line that says
  /// what is wrong: missing file, permission, not a capture file.
  public convenience init(path: String) throws(CaptureError) {
    // As pcap_open_offline does (fopen, then pcap_fopen_offline), with the
    // FILE prepared for streaming first.
    let file: UnsafeMutablePointer<FILE>
    if path == "-" {
      // fdopen rather than the C `stdin` global, which Swift 6 treats as shared mutable state.
      guard let input = fdopen(0, "rb") else { throw CaptureError("cannot read standard input") }
      file = input
    } else {
      guard let opened = fopen(path, "rb") else {
        throw CaptureFileCheck.openFailure(path: path, libpcapMessage: "")
      }
      file = opened
    }
    try self.init(file: file, path: path)
  }

  /// Reads standard input whose first bytes `input` has looked at (to
  /// tell the format); the reader sees them all the same.
  public convenience init(standardInput input: StandardInput) throws(CaptureError) {
    guard let file = input.open() else { throw CaptureError("cannot read standard input") }
    try self.init(file: file, path: "-")
  }

  private init(file: UnsafeMutablePointer<FILE>, path: String) throws(CaptureError) {
    self.path = path
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    let precision = UInt32(PCAP_TSTAMP_PRECISION_NANO)
    let buffer = Self.prepare(file)
    guard let opened = pcap_fopen_offline_with_tstamp_precision(file, precision, &errorBuffer) else {
      fclose(file)
      buffer.deallocate()
      let message = string(fromCBuffer: errorBuffer)
      if path == "-" { throw CaptureError("cannot read standard input: \(message)") }
      throw CaptureFileCheck.openFailure(path: path, libpcapMessage: message)
    }
    memory = buffer
    handle = opened
    nanosecondStamps = pcap_get_tstamp_precision(opened) == Int32(PCAP_TSTAMP_PRECISION_NANO)
    fileSnapLength = Int(pcap_snapshot(opened))
    isFile = path != "-"
    if isFile, pcap_major_version(opened) == 2 { walker = PcapRecordWalker(fileno(file)) }
  }

  /// Reads a capture held in memory (the fuzzer's inputs), through the same
  /// libpcap reader as files, via fmemopen.
  public init(bytes: [UInt8], name: String = "(memory)") throws(CaptureError) {
    self.path = name
    guard !bytes.isEmpty else { throw CaptureError("\(name) is empty: not a pcap or pcapng file") }
    guard let copy = MemoryFile(bytes) else { throw CaptureError("cannot open \(name) in memory") }
    let (file, buffer) = (copy.file, copy.memory)
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
    guard
      let opened = pcap_fopen_offline_with_tstamp_precision(
        file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else {
      fclose(file)
      buffer.deallocate()
      throw CaptureError("\(name): \(string(fromCBuffer: errorBuffer))")
    }
    handle = opened
    memory = buffer
    nanosecondStamps = pcap_get_tstamp_precision(opened) == Int32(PCAP_TSTAMP_PRECISION_NANO)
    fileSnapLength = Int(pcap_snapshot(opened))
    isFile = false
  }

  /// Bytes the C library reads from the file at a time: more than its 4 KiB
  /// default (a system call per ~40 small records), but not so many that
  /// glibc reads large records through the buffer instead of straight into
  /// libpcap's memory.
  static let fileBufferSize = 1 << 14

  /// Gives a capture file's FILE a larger buffer, and (glibc) tells the C
  /// library that one thread reads it, so its two `fread`s per record take
  /// no lock. Returns the buffer, to free after the FILE is closed.
  private static func prepare(_ file: UnsafeMutablePointer<FILE>) -> UnsafeMutableRawPointer {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: fileBufferSize, alignment: 64)
    setvbuf(file, buffer.assumingMemoryBound(to: CChar.self), _IOFBF, fileBufferSize)
    #if canImport(Glibc)
      __fsetlocking(file, Int32(FSETLOCKING_BYCALLER))
    #endif
    return buffer
  }

  deinit {
    defer { memory?.deallocate() }
    Self.free(filter)
    for program in fallbackFilters.values { Self.free(program) }
    pcap_close(handle)
  }

  private static func free(_ program: UnsafeMutablePointer<bpf_program>?) {
    guard let program else { return }
    pcap_freecode(program)
    program.deallocate()
  }

  /// The file's link type as libpcap reports it (a DLT_ value: LINKTYPE_RAW
  /// files report 12 on Linux, 14 on OpenBSD).
  public var linkType: Int32 { pcap_datalink(handle) }

  public var snapshotLength: Int32 { pcap_snapshot(handle) }

  /// Compiles a BPF expression for this file's link type; later reads skip
  /// records it rejects (they still count in frame numbers).
  public func setFilter(_ bpf: String) throws(CaptureError) {
    if PKTAP.isPKTAP(linkType) { return try setPKTAPFilter(bpf) }
    let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)
    program.initialize(to: bpf_program())
    guard pcap_compile(handle, program, bpf, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
      let message = String(cString: pcap_geterr(handle))
      program.deallocate()
      throw CaptureError("invalid filter '\(bpf)': \(message)")
    }
    Self.free(filter)
    filter = program
    filterExpression = bpf
    for program in fallbackFilters.values { Self.free(program) }
    fallbackFilters = [:]
  }

  /// libpcap compiles no filter for PKTAP outside macOS, so the filter is
  /// run on the packet inside each record, compiled for that packet's link
  /// type as the fallback reader's are (macOS's libpcap also filters the
  /// inner packet). The expression must compile for Ethernet at least.
  private func setPKTAPFilter(_ bpf: String) throws(CaptureError) {
    guard let dead = pcap_open_dead(LinkType.ethernet, 262_144) else {
      throw CaptureError("cannot compile filter '\(bpf)'")
    }
    defer { pcap_close(dead) }
    var program = bpf_program()
    guard pcap_compile(dead, &program, bpf, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
      throw CaptureError("invalid filter '\(bpf)': \(String(cString: pcap_geterr(dead)))")
    }
    pcap_freecode(&program)
    Self.free(filter)
    filter = nil
    filterExpression = bpf
    filtersInnerPackets = true
    for program in fallbackFilters.values { Self.free(program) }
    fallbackFilters = [:]
  }

  /// Whether a PKTAP record's packet passes the filter; a header too short
  /// to say where the packet is passes nothing.
  private func innerPacketPasses(_ record: CaptureRecord) -> Bool {
    let data = record.data
    guard data.count >= PKTAP.minimumHeaderLength, let base = data.baseAddress else { return false }
    let length = Int(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
    let dlt = Int32(bitPattern: UInt32(littleEndian: data.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
    guard length >= PKTAP.minimumHeaderLength, length <= data.count, let program = fallbackFilter(for: dlt)
    else { return false }
    var header = pcap_pkthdr()
    header.caplen = UInt32(data.count - length)
    header.len = UInt32(max(record.originalLength - length, data.count - length))
    return pcap_offline_filter(program, &header, (base + length).assumingMemoryBound(to: UInt8.self)) != 0
  }

  /// Whether `record` (read from this file) passes the filter set with
  /// `setFilter`; true when none is set.
  public func passes(_ record: CaptureRecord) -> Bool {
    guard filterExpression != nil else { return true }
    if filtersInnerPackets { return innerPacketPasses(record) }
    let program =
      fallback == nil && record.linkType == linkType ? filter : fallbackFilter(for: record.linkType)
    guard let program, let base = record.data.baseAddress else { return false }
    var header = pcap_pkthdr()
    header.caplen = UInt32(record.capturedLength)
    header.len = UInt32(max(record.originalLength, record.capturedLength))
    return pcap_offline_filter(program, &header, base.assumingMemoryBound(to: UInt8.self)) != 0
  }

  /// Makes a `read` in progress return after the current record.
  public func stop() {
    stopRequested = true
  }

  /// Calls `body` for each record (that passes the filter) and returns how
  /// reading ended. A second call continues where the first stopped.
  public func read(_ body: (CaptureRecord) -> Void) -> ReadEnd {
    // Decided per read, not per record: other files' loops stay as they were.
    if filtersInnerPackets, filtersOnRead {
      return readRecords { record in
        if innerPacketPasses(record) { body(record) }
      }
    }
    return readRecords(body)
  }

  private func readRecords(_ body: (CaptureRecord) -> Void) -> ReadEnd {
    let link = linkType
    let divisor = nanosecondStamps ? 1e9 : 1e6
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var bytes: UnsafePointer<UInt8>?
    stopRequested = false
    wasStopped = false
    if let fallback { return readFallback(fallback, skipping: 0, body) }
    while !stopRequested {
      let status = pcap_next_ex(handle, &header, &bytes)
      switch status {
      case 1:
        recordsRead += 1
        guard let header, let bytes else { continue }
        if filtersOnRead, let filter, pcap_offline_filter(filter, header, bytes) == 0 { continue }
        let stamp = header.pointee.ts
        let captured = Int(header.pointee.caplen)
        // libpcap cuts a record longer than the file's snapshot length to
        // it, silently; tshark reads the bytes the file holds. (Only
        // records exactly as long as the snap length are looked at again:
        // one comparison per record otherwise.)
        if captured == fileSnapLength, Int(header.pointee.len) > captured,
          let long = readLongRecord(recordsRead, captured: captured)
        {
          let time = Double(stamp.tv_sec) + Double(stamp.tv_usec) / divisor
          noteOverSnapLength(frame: recordsRead, time: time, captured: long, snapLength: fileSnapLength)
          longRecord.withUnsafeBytes { data in
            body(
              CaptureRecord(
                frame: recordsRead, time: time, linkType: link, capturedLength: long,
                originalLength: max(Int(header.pointee.len), long),
                data: UnsafeRawBufferPointer(rebasing: data[0..<long])))
          }
          continue
        }
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
        let message = String(cString: pcap_geterr(handle))
        let mixedLinkTypes = Self.isMixedLinkTypes(message)
        // (A pcap record past the maximum gets the same words; only pcapng
        // records are refused for passing their interface's snap length.)
        let overSnapLength = Self.isOverSnapLength(message) && pcap_major_version(handle) == 1
        if mixedLinkTypes || overSnapLength, path != "-", let reader = PcapngFallbackReader(path: path) {
          fallback = reader
          // libpcap has delivered the records before the one it refused; skip those.
          return readFallback(reader, skipping: recordsRead, body)
        }
        return .damaged(
          afterFrame: recordsRead, byteOffset: damageOffset(),
          reason: mixedLinkTypes ? Self.explainMixedLinkTypes(message) : message)
      }
    }
    wasStopped = true
    return .endOfFile
  }

  private func readFallback(
    _ reader: PcapngFallbackReader, skipping: Int, _ body: (CaptureRecord) -> Void
  ) -> ReadEnd {
    var skip = skipping
    while !stopRequested {
      switch reader.next() {
      case .endOfFile:
        return .endOfFile
      case .damaged(let offset, let reason):
        return .damaged(afterFrame: recordsRead, byteOffset: offset, reason: reason)
      case .record(let link, let time, let captured, let original, let snapLength, let range):
        if skip > 0 {
          skip -= 1
          continue
        }
        recordsRead += 1
        let frame = recordsRead
        let program = fallbackFilter(for: link)
        reader.block.withUnsafeBytes { block in
          let data = UnsafeRawBufferPointer(rebasing: block[range])
          if filterExpression != nil, filtersOnRead {
            guard let program, let base = data.baseAddress else { return }
            var header = pcap_pkthdr()
            header.caplen = UInt32(captured)
            header.len = UInt32(original)
            let start = base.assumingMemoryBound(to: UInt8.self)
            guard pcap_offline_filter(program, &header, start) != 0 else { return }
          }
          if snapLength > 0, captured > snapLength {
            noteOverSnapLength(frame: frame, time: time, captured: captured, snapLength: snapLength)
          }
          body(
            CaptureRecord(
              frame: frame, time: time, linkType: link, capturedLength: captured, originalLength: original,
              data: data))
        }
      }
    }
    wasStopped = true
    return .endOfFile
  }

  /// The filter expression compiled for one link type, for the fallback reader.
  private func fallbackFilter(for linkType: Int32) -> UnsafeMutablePointer<bpf_program>? {
    guard let filterExpression else { return nil }
    if let cached = fallbackFilters[linkType] { return cached }
    var compiled: UnsafeMutablePointer<bpf_program>?
    if let dead = pcap_open_dead(linkType, 262_144) {
      let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)
      program.initialize(to: bpf_program())
      if pcap_compile(dead, program, filterExpression, 1, PCAP_NETMASK_UNKNOWN) == 0 {
        compiled = program
      } else {
        program.deallocate()
      }
      pcap_close(dead)
    }
    fallbackFilters[linkType] = compiled
    return compiled
  }

  private func fileOffset() -> Int? {
    guard let file = pcap_file(handle) else { return nil }
    let offset = ftell(file)
    return offset >= 0 ? Int(offset) : nil
  }

  /// Says a record holds more than the snapshot length, once per record.
  private func noteOverSnapLength(frame: Int, time: Double, captured: Int, snapLength: Int) {
    onNotice?(
      CaptureNotice(
        .beyondSnapLength, .warning, frame: frame, time: time,
        text:
          "record \(frame) holds \(captured) bytes, more than the file's snapshot length \(snapLength); "
          + "all of them were read, as tshark reads them",
        details: [("captured", captured), ("snapshot_length", snapLength)]))
  }

  /// Reads record `number` again, in full, when the file holds more of it
  /// than libpcap handed over (`captured`). Returns its length, its bytes
  /// in `longRecord`; nil when the record was not longer.
  private func readLongRecord(_ number: Int, captured: Int) -> Int? {
    guard var walker else { return nil }
    let found = walker.record(number)
    self.walker = walker  // where it stopped: the next look starts there
    guard let record = found, record.captured > captured else { return nil }
    let length = record.captured
    if longRecord.count < length { longRecord = [UInt8](repeating: 0, count: length) }
    let read = longRecord.withUnsafeMutableBytes {
      walker.read(into: $0.baseAddress, length, at: record.data)
    }
    return read ? length : nil
  }

  /// Where the record or block libpcap could not read starts: libpcap stops
  /// after reading some of it (8 to 16 bytes of a header, or all of a
  /// block), so its own position is past it.
  private func damageOffset() -> Int? {
    if var walker {
      defer { self.walker = walker }
      return walker.offset(ofRecord: recordsRead + 1)
    }
    guard let reached = fileOffset() else { return nil }
    guard isFile, pcap_major_version(handle) == 1 else { return reached }
    return PcapngDamage.blockStart(in: path, packetsRead: recordsRead, reached: reached) ?? reached
  }

  /// libpcap reads a pcapng file only while every interface has the first
  /// one's link type; say so plainly, since the file itself is not damaged.
  static func isMixedLinkTypes(_ message: String) -> Bool {
    // strstr, not String.contains: that builds a searcher keyed by
    // Characters on every call, two thirds of the pcap fuzz target's time
    // (every damaged input asks, once).
    message.withCString { strstr($0, "different from the type of the first interface") != nil }
  }

  /// libpcap refuses a pcapng record longer than its interface's snapshot
  /// length, which tshark reads; so does the fallback reader.
  static func isOverSnapLength(_ message: String) -> Bool {
    message.withCString { strstr($0, "bigger than snaplen of") != nil }
  }

  static func explainMixedLinkTypes(_ message: String) -> String {
    "this pcapng file has interfaces with different link types, which libpcap cannot read; "
      + "pktbench reads such files itself, but only from a path, not from a pipe (libpcap: \(message))"
  }
}

/// Finds pcap records in the file by their headers, from the start or from
/// where it last stopped: libpcap does not say where a record starts, nor
/// how long one it cut to the snap length is in the file. Used only on
/// those two occasions, so reading a file costs nothing per record.
struct PcapRecordWalker {
  private let descriptor: Int32
  private let headerLength: Int
  private let bigEndian: Bool
  /// The next record to find, and where its header starts.
  private var number = 1
  private var offset = 24
  /// Bytes of the file read ahead, from `windowStart`: a walk over a
  /// million records is a few thousand reads, not a million.
  private var window: [UInt8] = []
  private var windowStart = 0
  static let windowSize = 1 << 16

  /// nil when the file's magic cannot be read.
  init?(_ descriptor: Int32) {
    var magic = [UInt8](repeating: 0, count: 4)
    guard pread(descriptor, &magic, 4, 0) == 4 else { return nil }
    self.descriptor = descriptor
    // A1B2C3D4 and A1B23C4D (nanoseconds) have 16-byte record headers;
    // Kuznetzov's modified format, A1B2CD34, has 24.
    bigEndian = magic[0] == 0xA1
    headerLength = magic == [0xA1, 0xB2, 0xCD, 0x34] || magic == [0x34, 0xCD, 0xB2, 0xA1] ? 24 : 16
  }

  /// Where record `wanted` (1-based) starts, walking the headers before it.
  mutating func offset(ofRecord wanted: Int) -> Int? {
    if wanted < number {
      number = 1
      offset = 24
    }
    while number < wanted {
      guard let captured = capturedLength(at: offset) else { return nil }
      offset += headerLength + captured
      number += 1
    }
    return offset
  }

  /// Record `wanted`'s captured length in the file, and where its data starts.
  mutating func record(_ wanted: Int) -> (captured: Int, data: Int)? {
    guard let start = offset(ofRecord: wanted), let captured = capturedLength(at: start) else { return nil }
    return (captured, start + headerLength)
  }

  func read(into buffer: UnsafeMutableRawPointer?, _ length: Int, at start: Int) -> Bool {
    pread(descriptor, buffer, length, off_t(start)) == length
  }

  /// The incl_len field of the record header at `start`.
  private mutating func capturedLength(at start: Int) -> Int? {
    let field = start + 8
    if field < windowStart || field + 4 > windowStart + window.count {
      window = [UInt8](repeating: 0, count: Self.windowSize)
      let got = window.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, Self.windowSize, off_t(field))
      }
      window.removeLast(Self.windowSize - max(0, got))
      windowStart = field
      guard window.count >= 4 else { return nil }
    }
    let bytes = window[(field - windowStart)..<(field - windowStart + 4)].map { Int($0) }
    return bigEndian
      ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
      : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
  }
}
