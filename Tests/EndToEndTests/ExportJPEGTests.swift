import Foundation
import Testing

/// `decode --export-jpeg DIR` against what the capture generator sent: its
/// fixture (Captures/expected/*.json, written by Captures/scripts) records
/// each camera frame's frameId and its JPEG's size and SHA-256; a frame the
/// capture lost bytes of has none, and is not exported.
@Suite struct ExportJPEGTests {
  static func sentImages(_ fixture: String) throws -> [String: (bytes: Int, sha256: String)] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixture)))
    let messages = (object as? [String: Any])?["messages"] as? [[String: Any]] ?? []
    var images: [String: (Int, String)] = [:]
    for message in messages where message["message"] as? String == "cameraFrame" {
      guard let fields = message["fields"] as? [String: Any], let id = fields["frameId"] as? String,
        let size = fields["jpeg_bytes"] as? Int, let hash = fields["jpeg_sha256"] as? String
      else { continue }
      images[id] = (size, hash)
    }
    return images
  }

  @Test(arguments: [
    ("Captures/falconeye-ws.pcap", "Captures/expected/falconeye-ws.json"),
    ("Captures/falconeye-ws-deflate.pcap", "Captures/expected/falconeye-ws-deflate.json"),
    ("Captures/field-session.pcapng", "Captures/expected/field-session.json"),
    ("Captures/damaged/falconeye-lost-segment.pcap", "Captures/expected/falconeye-lost-segment.json"),
  ])
  func everyCameraFrameIsSavedByItsFrameId(capture: String, fixture: String) throws {
    let sent = try Self.sentImages(fixture)
    #expect(!sent.isEmpty)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-jpeg-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try Pktbench.run(["decode", capture, "--export-jpeg", directory.path, "--format", "ndjson"])
    #expect(result.status == 0 || capture.contains("damaged"))
    #expect(!result.stdout.isEmpty, "the messages are still written")
    #expect(
      result.stderr.contains(
        "exported \(sent.count) JPEG file\(sent.count == 1 ? "" : "s") to \(directory.path)"))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files == sent.keys.map { "\($0).jpg" }.sorted())
    for (id, image) in sent {
      let bytes = try Data(contentsOf: directory.appendingPathComponent("\(id).jpg"))
      #expect(bytes.count == image.bytes)
      let hash = try Pktbench.runProgram(
        "/usr/bin/env",
        [
          "python3", "-c",
          "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
          directory.appendingPathComponent("\(id).jpg").path,
        ]
      ).text.trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(hash == image.sha256, "\(capture) \(id)")
      #expect(bytes.prefix(2) == Data([0xFF, 0xD8]))
    }
  }

  @Test func aFrameIdSeenAgainDoesNotOverwrite() throws {
    // The same session twice: the second file's frames get -2.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-jpeg-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try Pktbench.run([
      "decode", "Captures/falconeye-ws.pcap", "Captures/falconeye-ws-deflate.pcap", "--export-jpeg",
      directory.path,
      "--stats",
    ])
    #expect(result.status == 0)
    #expect(result.stderr.contains("exported 6 JPEG files"))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files.count == 6 && files.contains("frame-0001-2.jpg"))
  }
}
