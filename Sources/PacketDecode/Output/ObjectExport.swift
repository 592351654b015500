import Foundation
import PacketKit

/// `decode --export-jpeg DIR`: every field whose schema says it holds a
/// file of the media type asked for (`FieldSchema.content`), saved as a
/// file named by the field the schema names (a camera frame's frameId),
/// as tshark's `--export-objects` saves HTTP bodies. Which codec and which
/// field is the schema's business: nothing here names one.
///
/// The names come from the capture, so they are made safe (`ObjectFileName`)
/// and a file is never overwritten: a name taken gets `-2`, `-3`… (each
/// name remembers where its numbering got to, so 20,000 frames of one name
/// cost 20,000 tries, not 200 million), unless `--overwrite` lets a file of
/// an earlier run be replaced. At most `--max-files` files are written.
package final class ObjectExport {
  package static let defaultMaxFiles = 100_000

  package let directory: String
  package let mediaType: String
  package let overwrite: Bool
  package let maxFiles: Int
  package private(set) var written = 0
  /// Objects past `maxFiles`, not written.
  private(set) var leftOut = 0
  /// Names written in this run: never replaced, even with --overwrite.
  private var names: Set<String> = []
  /// Per name, the next suffix to try.
  private var nextSuffix: [String: Int] = [:]
  /// Per "codec message": the fields holding such content (most have none).
  private var fieldsByMessage: [String: [FieldSchema]] = [:]
  /// The codecs whose schemas say which fields hold files.
  private let codecs: CodecSet

  package init(
    directory: String, mediaType: String, codecs: CodecSet, overwrite: Bool = false,
    maxFiles: Int = defaultMaxFiles
  ) throws(CommandFailure) {
    self.codecs = codecs
    self.directory = directory
    self.mediaType = mediaType
    self.overwrite = overwrite
    self.maxFiles = maxFiles
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw CommandFailure(
        "cannot make the export directory \(directory): \(error.localizedDescription)",
        status: ExitStatus.output)
    }
  }

  /// Saves the objects a decoded message carries.
  package func export(_ record: DecodedRecord) throws(CommandFailure) {
    guard case .decoded(let frame) = record.result else { return }
    let key = "\(frame.codec) \(frame.message)"
    let fields: [FieldSchema]
    if let known = fieldsByMessage[key] {
      fields = known
    } else {
      let schema = codecs.named(frame.codec)?.info.messages.first { $0.name == frame.message }
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
        bytes, name: ObjectFileName.of(name ?? "\(frame.codec)-frame\(record.frame ?? 0)"),
        fileExtension: content.fileExtension)
    }
  }

  private func save(_ bytes: [UInt8], name: String, fileExtension: String) throws(CommandFailure) {
    guard written < maxFiles else {
      leftOut += 1
      return
    }
    var unique = name
    while true {
      if !names.contains(unique) {
        let path = (directory as NSString).appendingPathComponent("\(unique).\(fileExtension)")
        if try create(path, bytes) { break }
      }
      let suffix = nextSuffix[name, default: 2]
      nextSuffix[name] = suffix + 1
      unique = "\(name)-\(suffix)"
    }
    names.insert(unique)
    written += 1
  }

  /// Writes a new file at `path`; false when a file is there already (and
  /// may not be replaced). Never follows a link someone left at `path`:
  /// --overwrite removes the link itself.
  private func create(_ path: String, _ bytes: [UInt8]) throws(CommandFailure) -> Bool {
    var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    if descriptor < 0, errno == EEXIST {
      guard overwrite, unlink(path) == 0 else { return false }
      descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    }
    guard descriptor >= 0 else { throw Self.failure(path) }
    let failed = bytes.withUnsafeBytes { OutputWriter.writeAll(descriptor, $0) }
    if close(descriptor) != 0 || failed != nil {
      if let failed { errno = failed }
      throw Self.failure(path)
    }
    return true
  }

  private static func failure(_ path: String) -> CommandFailure {
    CommandFailure(
      "--export-jpeg: cannot write \(path): \(String(cString: strerror(errno)))", status: ExitStatus.output)
  }

  /// The line stderr gets at the end.
  package var summary: String {
    var line = "exported \(written) JPEG file\(written == 1 ? "" : "s") to \(directory)"
    if leftOut > 0 {
      line +=
        "; stopped at --max-files \(maxFiles): \(leftOut) more not written (raise --max-files to write them)"
    }
    return line
  }

  /// The object's bytes: the field's value, or what the codec extracts
  /// from the message's payload.
  package static func bytes(_ value: FieldValue, _ encoding: FieldSchema.Content.Encoding, payload: [UInt8]?)
    -> [UInt8]?
  {
    switch (value, encoding) {
    case (_, .extracted(let extract)): return payload.flatMap(extract)
    case (.bytes(let bytes), _): return bytes
    case (.string(let text), .base64): return Data(base64Encoded: text).map { [UInt8]($0) }
    default: return nil
    }
  }
}

/// Hands every record to the output and to the export.
package final class ObjectExportSink: MessageSink {
  private let inner: MessageSink
  private let export: ObjectExport
  /// The first write that failed; the run stops with it.
  package private(set) var failure: CommandFailure?

  package init(inner: MessageSink, export: ObjectExport) {
    self.inner = inner
    self.export = export
  }

  /// The payload too: a codec may extract an object from it.
  package var wantsPayload: Bool { true }
  package var wantsRecords: Bool { true }
  package var wantsCounts: Bool { inner.wantsCounts }
  /// The objects are read from the dissection tree.
  package var acceptsFlatRecords: Bool { false }

  package func emit(_ record: DecodedRecord) {
    if failure == nil {
      do {
        try export.export(record)
      } catch {
        failure = error
      }
    }
    if inner.wantsRecords { inner.emit(record) }
  }

  package func finish(name: String, stats: CaptureStats) { inner.finish(name: name, stats: stats) }
  package func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {
    inner.streamClosed(client: client, server: server, frame: frame, time: time, reason: reason)
  }
  package func skipped(_ record: DecodedRecord) { inner.skipped(record) }
  package func firstRecord(time: Double) { inner.firstRecord(time: time) }
}
