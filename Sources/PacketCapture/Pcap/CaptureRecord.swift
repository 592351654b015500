/// One record from a capture, as libpcap hands it over.
///
/// `data` points into libpcap's own buffer and is valid only during the
/// callback that received the record; copy what must outlive it.
public struct CaptureRecord {
  /// 1-based position of the record in the file, counting records a filter
  /// skipped, so it matches tshark's `frame.number`.
  public var frame: Int
  /// Unix seconds, fractional.
  public var time: Double
  public var linkType: Int32
  public var capturedLength: Int
  /// Length on the wire; larger than `capturedLength` when the snap length cut it.
  public var originalLength: Int
  public var data: UnsafeRawBufferPointer

  public init(
    frame: Int, time: Double, linkType: Int32, capturedLength: Int, originalLength: Int,
    data: UnsafeRawBufferPointer
  ) {
    self.frame = frame
    self.time = time
    self.linkType = linkType
    self.capturedLength = capturedLength
    self.originalLength = originalLength
    self.data = data
  }

  /// A record whose captured and original lengths are those of `data`.
  public init(frame: Int, time: Double, linkType: Int32, data: UnsafeRawBufferPointer) {
    self.init(
      frame: frame, time: time, linkType: linkType, capturedLength: data.count,
      originalLength: data.count, data: data)
  }

  /// True when the snap length cut the packet short.
  public var isTruncated: Bool { capturedLength < originalLength }
}
