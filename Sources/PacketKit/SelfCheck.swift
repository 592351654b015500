/// One input through a codec and back, with the message type erased: what
/// the fuzzer checks on every mutated input.
///
public enum SelfCheck: Sendable {
  /// `decode` threw.
  case refused(DecodeError)
  /// `decode` succeeded; `problem` is what went wrong taking the message
  /// back to bytes and decoding those again (nil: the same message).
  case decoded(DecodedFrame, problem: Problem?)

  public enum Problem: Sendable {
    /// `craftBytes` (forced: no range checks) refused the decoded message.
    case refusesToEncode(EncodeError)
    /// The re-encoded bytes do not decode.
    case reencodedDoesNotDecode(DecodeError)
    /// They decode to another message: both, as text.
    case differs(first: String, again: String)
  }
}

extension FrameCodec {
  /// `bytes` through `decode`, `craftBytes` and `decode` again.
  @inlinable
  public func selfCheck(_ bytes: ByteView) -> SelfCheck {
    let decoded: Decoded<Message>
    do {
      decoded = try decode(bytes)
    } catch {
      return .refused(error)
    }
    let frame = DecodedFrame(codec: name, decoded)
    let reencoded: [UInt8]
    do {
      reencoded = try craftBytes(decoded.message, values: CraftValues.forced)
    } catch {
      return .decoded(frame, problem: .refusesToEncode(error))
    }
    // `decode` reads nothing but its bytes: when the encoding is the input
    // itself, decoding it again would give the same message (the common
    // case for binary codecs, where it halves the decoding).
    if reencoded.withUnsafeBytes({ encoded in bytes.withUnsafeBytes { encoded.sameBytes(as: $0) } }) {
      return .decoded(frame, problem: nil)
    }
    do {
      let again = try decode(reencoded)
      guard again.message == decoded.message else {
        return .decoded(frame, problem: .differs(first: "\(decoded.message)", again: "\(again.message)"))
      }
    } catch {
      return .decoded(frame, problem: .reencodedDoesNotDecode(error))
    }
    return .decoded(frame, problem: nil)
  }
}
