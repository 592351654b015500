import CZlib

/// The receiving side of permessage-deflate for one direction (RFC 7692 §7.2.2).
///
/// It keeps the sender's LZ77 history as plain bytes (the last 32 KiB of
/// inflated output) and hands it to a fresh raw inflater as a preset
/// dictionary for each message. That keeps the decoder a value type with no
/// zlib state between calls, at the cost of one inflateInit per message.
struct WebSocketInflater: Sendable, Hashable {
  /// Largest LZ77 window deflate can use (windowBits 15).
  static let windowSize = 1 << 15
  /// Appended to each message before inflating (RFC 7692 §7.2.2).
  static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

  var contextTakeover: Bool
  private(set) var history: [UInt8] = []
  /// Set when history was lost (a gap, a failed or truncated message, a
  /// capture that began mid-connection); cleared once a full window of new
  /// history has been seen.
  private(set) var historyLost = false
  private var freshSinceLoss = 0

  init(contextTakeover: Bool) {
    self.contextTakeover = contextTakeover
  }

  enum Failure: Error, Sendable, Hashable {
    case tooLarge(limit: Int)
    case corrupt(String)
  }

  mutating func loseHistory() {
    guard contextTakeover else { return }
    history = []
    historyLost = true
    freshSinceLoss = 0
  }

  /// Inflates one compressed message and, with context takeover, remembers it.
  mutating func inflate(_ compressed: [UInt8], limit: Int) -> Result<[UInt8], Failure> {
    let dictionary = contextTakeover ? history : []
    let result = Self.inflateRaw(compressed, then: Self.tail, dictionary: dictionary, limit: limit)
    guard contextTakeover else { return result }
    switch result {
    case .success(let output):
      // Only a message's last window can be history: a camera frame's
      // hundreds of KB are not appended to be dropped again.
      history.append(contentsOf: output.suffix(Self.windowSize))
      if history.count > Self.windowSize { history.removeFirst(history.count - Self.windowSize) }
      if historyLost {
        freshSinceLoss += output.count
        if freshSinceLoss >= Self.windowSize { historyLost = false }
      }
    case .failure:
      // The sender's window now holds data we could not reproduce.
      loseHistory()
    }
    return result
  }

  /// Raw-inflates `input` and then `tail` as one stream (windowBits -15)
  /// with a preset dictionary, stopping as soon as the output would pass
  /// `limit`. (The tail is the four bytes RFC 7692 appends to a message:
  /// given apart, the message is not copied to append them.)
  static func inflateRaw(_ input: [UInt8], then tail: [UInt8], dictionary: [UInt8], limit: Int)
    -> Result<[UInt8], Failure>
  {
    let limit = min(max(0, limit), Int.max - 1)
    // zlib keeps a pointer back to the z_stream, so it must not move.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
      stream.deinitialize(count: 1)
      stream.deallocate()
    }
    guard inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      return .failure(.corrupt("zlib could not start an inflater"))
    }
    defer { inflateEnd(stream) }
    if !dictionary.isEmpty {
      let status = dictionary.withUnsafeBufferPointer { buffer in
        inflateSetDictionary(stream, buffer.baseAddress, uInt(buffer.count))
      }
      guard status == Z_OK else { return .failure(.corrupt("zlib refused the deflate history")) }
    }

    var output: [UInt8] = []
    // Room for a message that inflates to four times its size (base64 of
    // a JPEG inflates to 1.33): grown by doubling from there, it was copied
    // again and again.
    output.reserveCapacity(min(limit + 1, max(256, 4 * (input.count + tail.count))))
    // zlib writes it before it is read: not zero-filled (filling 64 KiB for
    // every message was a third of the WebSocket fuzz target's time).
    let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
    defer { chunk.deallocate() }
    var failure: Failure?
    input.withUnsafeBufferPointer { inputBuffer in
      tail.withUnsafeBufferPointer { tailBuffer in
        stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
        stream.pointee.avail_in = uInt(inputBuffer.count)
        var tailGiven = false
        while true {
          if stream.pointee.avail_in == 0, !tailGiven {
            // The input is used up: the tail follows it.
            stream.pointee.next_in = UnsafeMutablePointer(mutating: tailBuffer.baseAddress)
            stream.pointee.avail_in = uInt(tailBuffer.count)
            tailGiven = true
          }
          // Never ask for more than one byte past the limit: a bomb stops here.
          let room = min(chunk.count, max(0, limit - output.count) + 1)
          stream.pointee.next_out = chunk.baseAddress
          stream.pointee.avail_out = uInt(room)
          let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
          let produced = room - Int(stream.pointee.avail_out)
          output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<produced]))
          if output.count > limit {
            failure = .tooLarge(limit: limit)
            return
          }
          switch status {
          case Z_STREAM_END:
            // A final block (BFINAL) ended the stream; the appended tail is moot.
            return
          case Z_OK, Z_BUF_ERROR:
            // The input is used up and the tail not yet read: read it.
            if stream.pointee.avail_in == 0, !tailGiven { continue }
            if stream.pointee.avail_in == 0, produced < room {
              // After the empty stored block of the tail, zlib rests between
              // blocks (data_type bit 7); anywhere else the message was cut short.
              if stream.pointee.data_type & 128 == 0 {
                failure = .corrupt("the deflate data ends in the middle of a block")
              }
              return
            }
            if status == Z_BUF_ERROR, produced == 0 {
              failure = .corrupt("the deflate data ends in the middle of a block")
              return
            }
          default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            failure = .corrupt(reason)
            return
          }
        }
      }
    }
    if let failure { return .failure(failure) }
    return .success(output)
  }
}
