import Foundation
import PacketKit

/// Maps byte ranges of the inner JSON (the base64-decoded `payload`) back to
/// the bytes on the wire, so every dissection node and error points into the
/// message the user captured.
///
/// Inner byte i lies in base64 characters [4*(i/3), 4*(i/3)+4) of the payload
/// string, so an inner range [a, b) covers characters [4*(a/3), 4*((b+2)/3)).
/// Characters map to wire offsets one to one unless the payload string holds
/// JSON escapes (Apple's JSONEncoder writes `/` as `\/`); then each character
/// maps to the offset of the escape it came from.
struct FalconEyeWireMap: Sendable {
  /// Offset just after the payload string's opening quote (nil: bare message,
  /// inner offsets are wire offsets).
  private let start: Int?
  /// Offset of the closing quote.
  private let end: Int
  /// Wire offset of each character when the string had escapes.
  private let escapedOffsets: [Int]?

  static let identity = FalconEyeWireMap(start: nil, end: 0, escapedOffsets: nil)

  private init(start: Int?, end: Int, escapedOffsets: [Int]?) {
    self.start = start
    self.end = end
    self.escapedOffsets = escapedOffsets
  }

  /// The payload string value `string` (its range includes both quotes) in
  /// the wire bytes `bytes`.
  init(payload string: JSONNode, in bytes: UnsafeRawBufferPointer) {
    let open = string.range.lowerBound + 1
    let close = max(open, string.range.upperBound - 1)
    self.start = open
    self.end = close
    // memchr, not a byte loop: the payload of a camera frame is ~400 KB.
    var hasEscape = false
    let limit = min(close, bytes.count)
    if open < limit, let base = bytes.baseAddress {
      hasEscape = memchr(base + open, Int32(UInt8(ascii: "\\")), limit - open) != nil
    }
    self.escapedOffsets = hasEscape ? Self.characterOffsets(bytes, open, close) : nil
  }

  /// Wire offset of base64 character `index` (the closing quote past the end).
  func wireOffset(ofCharacter index: Int) -> Int {
    guard let start else { return index }
    if let escapedOffsets {
      return index >= 0 && index < escapedOffsets.count ? escapedOffsets[index] : end
    }
    return min(max(start, start + index), end)
  }

  /// Wire range of inner bytes `range`.
  func wire(_ range: Range<Int>) -> Range<Int> {
    guard start != nil else { return range }
    let low = wireOffset(ofCharacter: 4 * (range.lowerBound / 3))
    let high = wireOffset(ofCharacter: 4 * ((range.upperBound + 2) / 3))
    return low..<max(low, high)
  }

  /// Wire offset of inner byte `offset` (for errors).
  func wire(offset: Int) -> Int {
    wire(offset..<offset).lowerBound
  }

  /// The wire offset of each byte of the decoded string, walking its escapes.
  /// The JSON parser has already validated them; this still checks every
  /// index, and a mismatch only makes ranges coarser.
  private static func characterOffsets(_ bytes: UnsafeRawBufferPointer, _ open: Int, _ close: Int)
    -> [Int]
  {
    var offsets: [Int] = []
    offsets.reserveCapacity(close - open)
    var index = open
    let limit = min(close, bytes.count)
    while index < limit {
      guard bytes[index] == UInt8(ascii: "\\"), index + 1 < limit else {
        offsets.append(index)
        index += 1
        continue
      }
      guard bytes[index + 1] == UInt8(ascii: "u") else {
        offsets.append(index)
        index += 2
        continue
      }
      let scalar = hex4(bytes, index + 2, limit) ?? 0
      var length = 6
      var utf8Count = scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : 3
      if (0xD800...0xDBFF).contains(scalar) {
        length = 12
        utf8Count = 4
      }
      for _ in 0..<utf8Count { offsets.append(index) }
      index += length
    }
    return offsets
  }

  private static func hex4(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ limit: Int) -> UInt32? {
    guard from + 4 <= limit else { return nil }
    var value: UInt32 = 0
    for index in from..<from + 4 {
      let c = bytes[index]
      let digit: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }
}
