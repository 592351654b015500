import PacketKit

/// A camera frame's `imageData` as the message keeps it: the image's bytes
/// when the text is base64 that encoding them gives back exactly, else the
/// text as sent (not base64, or base64 with stray bits in its last
/// character, which the server decodes anyway).
///
/// Decoding a frame turns its text into bytes in one pass of the base64
/// kernel, which also checks it; a `String` of the text was a copy and a
/// UTF-8 check of hundreds of kilobytes, then a second pass to check the
/// base64. Encoding writes the base64 straight into the JSON.
public enum FalconEyeImageData: Sendable, Equatable, ExpressibleByStringLiteral {
  /// The image: what the base64 text decodes to.
  case bytes([UInt8])
  /// Text that is not canonical base64, kept as sent.
  case text(String)

  /// The image data for `text`: its bytes when it is canonical base64.
  public init(text: String) {
    var text = text
    self = text.withUTF8 { Self.reading(UnsafeRawBufferPointer($0)).data }
  }

  public init(stringLiteral text: String) { self.init(text: text) }

  /// The image data of `text` (UTF-8) and what decoding it gave: the image,
  /// or why the text is not base64 (a frame's decoder warns with it). The
  /// bytes are kept when the text is base64 that encodes back to itself.
  static func reading(_ text: UnsafeRawBufferPointer)
    -> (data: FalconEyeImageData, decoded: Result<[UInt8], FalconEyeBase64.Failure>)
  {
    let decoded = Result { () throws(FalconEyeBase64.Failure) in try FalconEyeBase64.decode(text) }
    if case .success(let bytes) = decoded, FalconEyeBase64.isCanonical(text) {
      return (.bytes(bytes), decoded)
    }
    return (.text(String(decoding: text, as: UTF8.self)), decoded)
  }

  /// The text on the wire.
  public var text: String {
    switch self {
    case .bytes(let bytes): FalconEyeBase64.encode(bytes)
    case .text(let text): text
    }
  }

  /// The number of characters of the text on the wire.
  var textCount: Int {
    switch self {
    case .bytes(let bytes): FalconEyeBase64.encodedCount(bytes.count)
    case .text(let text): text.utf8.count
    }
  }

  /// The decoded image bytes, or nil when the text is not strict base64.
  public var imageBytes: [UInt8]? {
    switch self {
    case .bytes(let bytes): bytes
    case .text(let text): try? FalconEyeBase64.decode(text)
    }
  }

  /// Writes the text as a JSON string.
  func write(to writer: inout JSONWriter) {
    switch self {
    case .bytes(let bytes):
      // base64 has nothing JSON escapes.
      writer.raw("\"")
      bytes.withUnsafeBytes { FalconEyeBase64.encode($0, into: &writer) }
      writer.raw("\"")
    case .text(let text):
      writer.string(text)
    }
  }

  /// Images compared by `memcmp` (`==` on two byte arrays steps through them
  /// a byte at a time; an image is hundreds of kilobytes).
  public static func == (a: FalconEyeImageData, b: FalconEyeImageData) -> Bool {
    switch (a, b) {
    case (.bytes(let a), .bytes(let b)):
      a.withUnsafeBytes { a in b.withUnsafeBytes { a.sameBytes(as: $0) } }
    case (.text(let a), .text(let b)): a == b
    default: false
    }
  }
}
