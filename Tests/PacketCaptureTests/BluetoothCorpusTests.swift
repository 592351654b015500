import Foundation
import PacketCapture
import Testing

/// The real Android btsnoop logs in the shared corpus, checked against
/// tshark where it is installed.
@Suite struct BluetoothCorpusTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/corpus/btsnoop").standardizedFileURL.path

  static let files: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".btsnoop") }.sorted()
  }()

  static let tshark: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// Lines tshark prints for a file, or nil if it did not run.
  static func tsharkLines(_ arguments: [String]) -> [String]? {
    guard let tshark else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tshark)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  @Test(.enabled(if: !files.isEmpty, "corpus not present"), arguments: files)
  func androidLogReadsFullyAndDecodes(name: String) throws {
    let path = Self.directory + "/" + name
    let file = try BtsnoopFile(path: path)
    #expect(file.datalink == 1002)
    let linkType = try #require(BluetoothLinkType.forBtsnoopDatalink(file.datalink))
    let decoder = BluetoothDecoder()
    var count = 0
    var firstTime: Double?
    var events: [BluetoothEvent] = []
    let end = file.read { record in
      count += 1
      if firstTime == nil { firstTime = record.time }
      decoder.decode(linkType, frame: record.frame, time: record.time, flags: record.flags, data: record.data)
      {
        events.append($0)
      }
    }
    decoder.finish { events.append($0) }
    #expect(end == .endOfFile)
    #expect(count > 1000)
    #expect(decoder.statistics.records == count)
    #expect(decoder.bufferedBytes == 0)
    // Every HCI packet in these logs is well formed.
    #expect(events.damages.filter { $0.layer == "hci" || $0.layer == "acl" }.isEmpty)

    guard let frames = Self.tsharkLines(["-r", path, "-T", "fields", "-e", "frame.number"]) else { return }
    #expect(count == frames.count)
    // Same packet kinds as tshark's HCI dissectors.
    for (filter, seen) in [
      ("bthci_cmd", decoder.statistics.hciCommands), ("bthci_evt", decoder.statistics.hciEvents),
      ("bthci_acl", decoder.statistics.aclPackets),
    ] {
      #expect(
        Self.tsharkLines(["-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])?.count == seen)
    }
    // Same clock: tshark's epoch time of the first record.
    let epoch = Self.tsharkLines(["-r", path, "-c", "1", "-T", "fields", "-e", "frame.time_epoch"])?.first
    let tsharkTime = try #require(epoch.flatMap { Double($0) })
    let time = try #require(firstTime)
    #expect(abs(time - tsharkTime) < 0.000_01)
  }
}
