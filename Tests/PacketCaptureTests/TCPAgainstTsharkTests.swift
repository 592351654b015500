import Foundation
import PacketCapture
import Testing

/// Reassembled TCP streams of real captures compared with Wireshark's
/// "Follow TCP Stream" (`tshark -z follow,tcp,raw,N`), an independent
/// reassembler: same bytes in each direction of each connection.
@Suite struct TCPAgainstTsharkTests {
  static let shared = CorpusTests.corpus.deletingLastPathComponent()
  /// Not of10_s4810.pcap: tshark's follow output there drops 238 bytes of
  /// 10.0.0.81:56068's stream (frame 47 shows 36 of its 137 bytes, frame
  /// 132 is missing) although the segments are contiguous from the SYN to
  /// the FIN; their tcp.len values sum to the 14,902 bytes pktbench delivers.
  static let files = [
    "real-captures/aerie-real-session.pcap",
    "corpus/tcpdump/bigtcp-ipv4.pcap",
    "corpus/tcpdump/mptcp-v1.pcap",
    "corpus/tcpdump/resp_1_benchmark.pcap",
    "corpus/tcpdump/ssh.pcap",
    "corpus/tcpdump/gso-ipv4.pcap",
    "corpus/tcpdump/bgp-bgpsec.pcap",
  ]

  static var tsharkPresent: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark")
  }

  /// Per connection (client and server text, in the order of first appearance): the two byte streams.
  struct Streams: Equatable, CustomStringConvertible {
    var ends: [String: ([UInt8], [UInt8])] = [:]
    static func == (lhs: Streams, rhs: Streams) -> Bool {
      lhs.ends.keys.sorted() == rhs.ends.keys.sorted()
        && lhs.ends.allSatisfy { key, value in rhs.ends[key].map { $0 == value } ?? false }
    }
    var description: String {
      ends.keys.sorted().map { "\($0): \(ends[$0]?.0.count ?? 0)+\(ends[$0]?.1.count ?? 0)B" }
        .joined(separator: ", ")
    }
  }

  @Test(.enabled(if: tsharkPresent, "tshark is not installed"), arguments: files)
  func sameStreamsAsTshark(file: String) throws {
    let path = Self.shared.appendingPathComponent(file).path
    guard FileManager.default.fileExists(atPath: path) else { return }
    let ours = try Self.reassemble(path)
    let theirs = try Self.follow(path)
    #expect(!theirs.ends.isEmpty, "tshark followed no stream in \(file)")
    #expect(ours == theirs, "\(file): ours \(ours) vs tshark \(theirs)")
  }

  /// Connections keyed "a|b" with a < b as text; first element the bytes a sent.
  static func key(_ one: String, _ other: String) -> (String, Bool) {
    one < other ? ("\(one)|\(other)", true) : ("\(other)|\(one)", false)
  }

  static func reassemble(_ path: String) throws -> Streams {
    let reader = try PcapFileReader(path: path)
    let decoder = PacketDecoder()
    var streams = Streams()
    var gaps = 0
    let handle = { (event: TransportEvent) in
      switch event {
      case .streamData(let id, let direction, _, _, let bytes):
        let (name, forward) = key("\(id.source(direction))", "\(id.destination(direction))")
        var pair = streams.ends[name] ?? ([], [])
        if forward { pair.0 += bytes } else { pair.1 += bytes }
        streams.ends[name] = pair
      case .streamGap: gaps += 1
      default: break
      }
    }
    _ = reader.read { decoder.decode($0, handle) }
    decoder.finish(handle)
    #expect(gaps == 0, "\(path): \(gaps) gaps")
    return streams
  }

  /// Runs tshark once to count streams and once to follow them all.
  static func follow(_ path: String) throws -> Streams {
    let indexes = try run(["-r", path, "-T", "fields", "-e", "tcp.stream"])
      .split(separator: "\n").compactMap { Int($0) }
    guard let last = indexes.max() else { return Streams() }
    let output = try run(
      ["-r", path, "-q"] + (0...last).flatMap { ["-z", "follow,tcp,raw,\($0)"] })
    var streams = Streams()
    var nodes: [String] = []
    var pair: ([UInt8], [UInt8]) = ([], [])
    func finishBlock() {
      guard nodes.count == 2, !(pair.0.isEmpty && pair.1.isEmpty) else { return }
      let (name, forward) = key(nodes[0], nodes[1])
      var existing = streams.ends[name] ?? ([], [])
      existing.0 += forward ? pair.0 : pair.1
      existing.1 += forward ? pair.1 : pair.0
      streams.ends[name] = existing
    }
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("=====") {
        finishBlock()
        nodes = []
        pair = ([], [])
      } else if line.hasPrefix("Node ") {
        nodes.append(String(line.split(separator: " ", maxSplits: 2).last ?? ""))
      } else if line.hasPrefix("Follow:") || line.hasPrefix("Filter:") || line.isEmpty {
        continue
      } else if line.hasPrefix("\t") {
        pair.1 += hex(String(line.dropFirst()))
      } else {
        pair.0 += hex(String(line))
      }
    }
    return streams
  }

  static func run(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}
