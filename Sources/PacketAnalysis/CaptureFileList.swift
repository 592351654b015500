import Foundation
import PacketDecode

/// The files `analyze` reads as one capture: the paths given, a
/// directory's capture files, dumpcap's ring-buffer files in their order
/// (`name_00001_20261126073520.pcapng`, by the number, which outlasts the
/// name's order past 99999).
package enum CaptureFileList {
  package static let extensions: Set<String> = ["pcap", "pcapng", "cap"]

  static func expand(_ inputs: [String]) throws -> [String] {
    var files: [String] = []
    for input in inputs {
      var isDirectory: ObjCBool = false
      if input != "-", FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
        let captures = names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
        guard !captures.isEmpty else {
          throw CommandFailure(
            "\(input): a directory without pcap or pcapng files in it", status: ExitStatus.unreadable)
        }
        files += ordered(captures).map { (input as NSString).appendingPathComponent($0) }
      } else {
        files.append(input)
      }
    }
    if files.count > 1, files.contains("-") {
      throw CommandFailure(
        "- (standard input) cannot be merged with other files; give files only", status: ExitStatus.usage)
    }
    return files.count > 1 && files.allSatisfy({ ringNumber(of: $0) != nil }) ? ordered(files) : files
  }

  /// Ring-buffer files by their number, others by name.
  package static func ordered(_ names: [String]) -> [String] {
    let numbers = names.map(ringNumber(of:))
    if numbers.allSatisfy({ $0 != nil }) {
      return zip(names, numbers).sorted { ($0.1 ?? 0, $0.0) < ($1.1 ?? 0, $1.0) }.map(\.0)
    }
    return names.sorted()
  }

  /// dumpcap's `<prefix>_<number>_<YYYYMMDDhhmmss>.<ext>`: the number.
  static func ringNumber(of path: String) -> Int? {
    let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    let parts = name.split(separator: "_", omittingEmptySubsequences: false)
    guard parts.count >= 3, let stamp = parts.last, stamp.count == 14, stamp.allSatisfy(\.isNumber),
      let number = parts.dropLast().last, number.count >= 5, number.allSatisfy(\.isNumber)
    else { return nil }
    return Int(number)
  }

  /// How the report names several files.
  package static func name(of files: [String]) -> String {
    guard files.count > 1 else { return files.first ?? "-" }
    if files.count <= 3 { return files.joined(separator: " + ") }
    return "\(files[0]) … \(files[files.count - 1]) (\(files.count) files)"
  }
}
