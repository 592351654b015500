import CodecRegistry
import Foundation
import PacketKit

/// `decode --export-jpeg DIR`: every field whose schema says it holds a
/// file of the media type asked for (`FieldSchema.content`), saved as a
/// file named by the field the schema names (a camera frame's frameId),
/// as tshark's `--export-objects` saves HTTP bodies. Which codec and which
/// field is the schema's business: nothing here names one.
final class ObjectExport {
  let directory: String
  let mediaType: String
  private(set) var written = 0
  /// Names given so far: a name seen again gets `-2`, `-3`… rather than
  /// overwriting the first object.
  private var names: Set<String> = []
  /// Per "codec message": the fields holding such content (most have none).
  private var fieldsByMessage: [String: [FieldSchema]] = [:]

  init(directory: String, mediaType: String) throws(CommandFailure) {
    self.directory = directory
    self.mediaType = mediaType
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw CommandFailure(
        "cannot make the export directory \(directory): \(error.localizedDescription)",
        status: ExitStatus.output)
    }
  }

  /// Saves the objects a decoded message carries.
  func export(_ record: DecodedRecord) throws(CommandFailure) {
    guard case .decoded(let frame) = record.result else { return }
    let key = "\(frame.codec) \(frame.message)"
    let fields: [FieldSchema]
    if let known = fieldsByMessage[key] {
      fields = known
    } else {
      let schema = Codecs.named(frame.codec)?.info.messages.first { $0.name == frame.message }
      fields = schema?.fields.filter { $0.content?.mediaType == mediaType } ?? []
      fieldsByMessage[key] = fields
    }
    for field in fields {
      guard let content = field.content, let node = frame.fields.first(named: field.name),
        let bytes = Self.bytes(node.value, content.encoding, payload: record.payload)
      else { continue }
      var name: String?
      if let nameField = content.nameField, let named = frame.fields.first(named: nameField) {
        if case .string(let text) = named.value { name = text } else { name = named.value.display }
      }
      try save(
        bytes, name: Self.fileName(name ?? "\(frame.codec)-frame\(record.frame ?? 0)"), content: content)
    }
  }

  private func save(_ bytes: [UInt8], name: String, content: FieldSchema.Content) throws(CommandFailure) {
    var unique = name
    var suffix = 2
    while names.contains(unique) {
      unique = "\(name)-\(suffix)"
      suffix += 1
    }
    names.insert(unique)
    let path = (directory as NSString).appendingPathComponent("\(unique).\(content.fileExtension)")
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
      throw CommandFailure("--export-jpeg: cannot write \(path)", status: ExitStatus.output)
    }
    written += 1
  }

  /// The object's bytes: the field's value, or what the codec extracts
  /// from the message's payload.
  static func bytes(_ value: FieldValue, _ encoding: FieldSchema.Content.Encoding, payload: [UInt8]?)
    -> [UInt8]?
  {
    switch (value, encoding) {
    case (_, .extracted(let extract)): return payload.flatMap(extract)
    case (.bytes(let bytes), _): return bytes
    case (.string(let text), .base64): return Data(base64Encoded: text).map { [UInt8]($0) }
    default: return nil
    }
  }

  /// A name from the capture made safe as a file name: no directories,
  /// no control characters, not hidden, not empty.
  static func fileName(_ name: String) -> String {
    var safe = String(
      name.unicodeScalars.map { scalar -> Character in
        scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F
          ? "_" : Character(scalar)
      })
    if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
    if safe.isEmpty { safe = "_" }
    return String(safe.prefix(200))
  }
}

/// Hands every record to the output and to the export.
final class ObjectExportSink: MessageSink {
  private let inner: MessageSink
  private let export: ObjectExport
  /// The first write that failed; the run stops with it.
  private(set) var failure: CommandFailure?

  init(inner: MessageSink, export: ObjectExport) {
    self.inner = inner
    self.export = export
  }

  /// The payload too: a codec may extract an object from it.
  var wantsPayload: Bool { true }
  var wantsRecords: Bool { true }
  var wantsCounts: Bool { inner.wantsCounts }
  /// The objects are read from the dissection tree.
  var acceptsFlatRecords: Bool { false }

  func emit(_ record: DecodedRecord) {
    if failure == nil {
      do {
        try export.export(record)
      } catch {
        failure = error
      }
    }
    if inner.wantsRecords { inner.emit(record) }
  }

  func finish(name: String, stats: CaptureStats) { inner.finish(name: name, stats: stats) }
  func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {
    inner.streamClosed(client: client, server: server, frame: frame, time: time, reason: reason)
  }
  func skipped(_ record: DecodedRecord) { inner.skipped(record) }
  func firstRecord(time: Double) { inner.firstRecord(time: time) }
}
