/// One message crafted from values, decoded and encoded again, with the
/// message type erased: the fuzzer's round trip.
public enum CraftCheck: Sendable {
  /// The codec refused the values (`message(_:from:)` or `craftBytes`): a
  /// generated value it does not take, not a failure.
  case refused(EncodeError)
  /// The crafted bytes do not decode.
  case doesNotDecode([UInt8], DecodeError)
  /// They decode to another message, which encodes to other bytes: both
  /// messages, as text.
  case differs([UInt8], sent: String, decoded: String)
  /// The crafted bytes decoded to the message, or to one that differs only
  /// in what the wire cannot carry (`wireEquivalent`: it encodes to the
  /// very same bytes); `problem` is what went wrong encoding it again (nil:
  /// nothing).
  case decoded([UInt8], fields: [DissectionNode], problem: Problem?, wireEquivalent: Bool)

  public enum Problem: Sendable {
    /// `encode` refuses the decoded message.
    case refusesToEncode(EncodeError)
    /// `encode` gives other bytes than were crafted.
    case reencodes([UInt8])
  }
}

extension FrameCodec {
  /// Crafts `message` from `values`, decodes it and encodes it again.
  @inlinable
  public func craftCheck(_ message: String, values: CraftValues) -> CraftCheck {
    let sent: Message
    let bytes: [UInt8]
    do {
      sent = try self.message(message, from: values)
      bytes = try craftBytes(sent, values: values)
    } catch {
      return .refused(error)
    }
    let decoded: Decoded<Message>
    do {
      decoded = try decode(bytes)
    } catch {
      return .doesNotDecode(bytes, error)
    }
    let again = Result { () throws(EncodeError) in try encode(decoded.message) }
    // Compared once, by memcmp: `==` on arrays of bytes steps through them
    // a byte at a time, and camera frames are large.
    let sameBytes: Bool
    if case .success(let reencoded) = again {
      sameBytes = reencoded.withUnsafeBytes { again in bytes.withUnsafeBytes { again.sameBytes(as: $0) } }
    } else {
      sameBytes = false
    }
    let sameMessage = decoded.message == sent
    if !sameMessage && !sameBytes {
      return .differs(bytes, sent: "\(sent)", decoded: "\(decoded.message)")
    }
    let problem: CraftCheck.Problem?
    switch again {
    case .failure(let error): problem = .refusesToEncode(error)
    case .success(let reencoded): problem = sameBytes ? nil : .reencodes(reencoded)
    }
    return .decoded(
      bytes, fields: decoded.fields, problem: problem, wireEquivalent: !sameMessage && sameBytes)
  }
}
