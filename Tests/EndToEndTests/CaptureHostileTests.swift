import Foundation
import Testing

/// Issue 26 through the built binary: hostile captures written by
/// Tests/Fixtures/capture/make_hostile.py and make_floods.py (plain struct
/// packing from the RFCs and the pcap format), decoded and analysed as a
/// user would. The expected frames, ranges and counts are the facts the
/// scripts print about what they wrote.
@Suite struct CaptureHostileTests {
  struct Capture {
    var path: String
    var facts: [String: Any]
  }

  static func make(_ script: String, _ arguments: [String]) throws -> Capture {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-hostile-\(UUID().uuidString).pcap").path
    let scriptPath = Pktbench.root.appendingPathComponent("Tests/Fixtures/capture/\(script)").path
    let result = try Pktbench.runProgram("/usr/bin/env", ["python3", scriptPath] + arguments + [path])
    #expect(result.status == 0, "\(result.stderr)")
    let facts = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] ?? [:]
    return Capture(path: path, facts: facts)
  }

  static func hostile(_ kind: String) throws -> Capture { try make("make_hostile.py", [kind]) }

  static func ndjson(_ path: String, _ extra: [String] = []) throws -> [[String: Any]] {
    let result = try Pktbench.run(["decode", path, "--format", "ndjson"] + extra)
    return result.text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  static func diagnostics(_ record: [String: Any]) -> [[String: Any]] {
    record["diagnostics"] as? [[String: Any]] ?? []
  }

  static func texts(_ record: [String: Any], code: String) -> [String] {
    diagnostics(record).filter { $0["code"] as? String == code }.compactMap { $0["text"] as? String }
  }

  static func fields(_ record: [String: Any]) -> [String: Any] { record["fields"] as? [String: Any] ?? [:] }

  // MARK: 1. Snap length

  /// `editcap -s 60` (Wireshark's own tool cuts the file): every datagram
  /// keeps its addresses and ports and says 18 of its payload bytes were
  /// kept (60 − 14 − 20 − 8).
  @Test(.enabled(if: Pktbench.which("editcap") != nil, "editcap is not installed"))
  func editcapSnapLengthKeepsHeadersAndSaysTheCut() throws {
    let capture = try Self.hostile("rider-udp")
    let cut = capture.path + ".s60.pcap"
    defer { try? FileManager.default.removeItem(atPath: cut) }
    let editcap = try Pktbench.runProgram(
      try #require(Pktbench.which("editcap")), ["-s", "60", capture.path, cut])
    #expect(editcap.status == 0, "\(editcap.stderr)")
    let records = try Self.ndjson(cut)
    let lengths = try #require(capture.facts["payload_lengths"] as? [Int])
    #expect(records.count == lengths.count)
    for (record, length) in zip(records, lengths) {
      #expect(record["src"] as? String == "10.0.0.2:40000")
      #expect(record["dst"] as? String == "10.0.0.7:5005")
      #expect(record["transport"] as? String == "udp")
      #expect(record["codec"] as? String == "rider")
      #expect(
        Self.texts(record, code: "capture-cut") == ["payload cut by the capture: kept 18 of \(length) bytes"])
      #expect((record["error"] as? [String: Any])?["code"] as? String == "incomplete")
    }
  }

  /// Records longer than the file's snap length (60) are read in full, as
  /// tshark reads them, and each is said.
  @Test func recordsPastTheSnapLengthAreReadAndSaid() throws {
    let capture = try Self.hostile("over-snaplen")
    let records = try Self.ndjson(capture.path)
    let drives = records.filter { $0["message"] as? String == "drive" }
    #expect(drives.map { Self.fields($0)["left"] as? Int } == [11, 22])
    let notes = records.filter { $0["message"] as? String == "capture.beyond-snaplen" }
    #expect(notes.map { $0["frame"] as? Int } == [1, 2])
    #expect(
      notes.map { Self.fields($0)["captured"] as? Int } == (capture.facts["lengths"] as? [Int])?.map { $0 })
  }

  // MARK: 2. Fragment flood

  /// 3,000 abandoned IPv6 first fragments: every drop is counted in
  /// `--stats`, shown in ndjson, and summed in one analyze finding; no
  /// datagram id becomes a counter of its own.
  @Test func fragmentDropsShowInEveryOutput() throws {
    let capture = try Self.make("make_floods.py", ["ipv6-fragments", "3000"])
    let count = try #require(capture.facts["first_fragments"] as? Int)
    let stats = try Pktbench.run(["decode", capture.path, "--stats", "--format", "json"])
    let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any])
    #expect((json["events"] as? [String: Any])?["ip.fragments-dropped"] as? Int == count)
    #expect((json["undecoded"] as? [String: Any])?.isEmpty == true)
    let text = try Pktbench.run(["decode", capture.path])
    #expect(text.text.split(separator: "\n").filter { $0.contains("ip.fragments-dropped") }.count == count)
    let records = try Self.ndjson(capture.path)
    #expect(records.filter { $0["message"] as? String == "ip.fragments-dropped" }.count == count)
    #expect(records.first.map { Self.diagnostics($0).first?["code"] as? String } == "fragments-dropped")
    let report = try Analyze.run(capture.path)
    let finding = try #require(report.findings("capture.fragments-dropped").first)
    #expect(Analyze.details(finding)["count"] as? Int == count)
  }

  // MARK: 3. Connection table floods

  /// 20,000 SYNs (more than the 16,384-connection table) between a
  /// FalconEye session's messages: the session is not evicted, its later
  /// heartbeats decode, and analyze finds nothing unanswered.
  @Test func synFloodLeavesTheSessionAlone() throws {
    let capture = try Self.make("make_floods.py", ["syn-flood", "20000"])
    let after = try #require(capture.facts["heartbeats_after_flood"] as? [Int])
    let records = try Self.ndjson(capture.path)
    let decoded = records.filter { after.contains($0["frame"] as? Int ?? 0) }
    #expect(decoded.map { $0["message"] as? String } == ["heartbeat", "heartbeat", "heartbeat", "heartbeat"])
    #expect(decoded.allSatisfy { $0["transport"] as? String == "websocket" })
    #expect(!records.contains { $0["message"] as? String == "tcp.evicted" })
    let report = try Analyze.run(capture.path)
    #expect(report.findings("falconeye.heartbeat-unanswered").isEmpty)
  }

  /// 20,000 connections that each carry a byte: now the idle session is
  /// evicted (and said so), then picked up when it speaks, and its
  /// heartbeats decode as before.
  /// 50,000 connections that each carry a byte: more evictions than the
  /// table remembers, so the session must be kept for what it carried.
  @Test func dataFloodEvictsTheSessionAndResumesIt() throws {
    let capture = try Self.make("make_floods.py", ["data-flood", "50000"])
    let after = try #require(capture.facts["heartbeats_after_flood"] as? [Int])
    let records = try Self.ndjson(capture.path)
    let ours = records.filter { ($0["src"] as? String)?.hasPrefix("10.1.0.") == true }
    #expect(ours.contains { $0["message"] as? String == "tcp.evicted" })
    #expect(ours.contains { $0["message"] as? String == "tcp.resumed" && $0["frame"] as? Int == after.first })
    let decoded = ours.filter {
      after.contains($0["frame"] as? Int ?? 0) && $0["codec"] as? String == "falconeye"
    }
    #expect(decoded.map { $0["frame"] as? Int } == after)
    let report = try Analyze.run(capture.path)
    #expect(report.findings("falconeye.heartbeat-unanswered").isEmpty)
    #expect(report.findings("capture.tcp-evicted").count == 1)
  }

  // MARK: 4. Sequence jump

  @Test func sequenceJumpIsSaidAndDecodingRecovers() throws {
    let capture = try Self.hostile("seq-jump")
    let jumpFrame = try #require(capture.facts["jump_frame"] as? Int)
    let after = try #require(capture.facts["heartbeats_after"] as? [Int])
    let records = try Self.ndjson(capture.path)
    let desync = try #require(records.first { $0["message"] as? String == "tcp.desync" })
    #expect(desync["frame"] as? Int == jumpFrame)
    #expect(Self.fields(desync)["expected"] as? Int == capture.facts["expected"] as? Int)
    #expect(Self.fields(desync)["sequence"] as? Int == capture.facts["sequence"] as? Int)
    let heartbeats = records.filter {
      $0["message"] as? String == "heartbeat" && $0["src"] as? String == "10.1.0.2:40041"
    }
    #expect(heartbeats.compactMap { $0["frame"] as? Int }.filter { $0 >= jumpFrame } == after)
  }

  // MARK: 5. Overlaps that disagree

  @Test func tcpOverlapsNameFramesAndBytes() throws {
    let capture = try Self.hostile("tcp-overlap")
    let records = try Self.ndjson(capture.path)
    let overlaps = records.filter { $0["message"] as? String == "tcp.overlap" }
    #expect(
      overlaps.map { $0["frame"] as? Int } == [
        capture.facts["late"] as? Int, capture.facts["resent"] as? Int,
      ])
    let late = try #require(capture.facts["late_range"] as? [Int])
    #expect(overlaps.first.map { Self.fields($0)["range_start"] as? Int } == late[0])
    #expect(overlaps.first.map { Self.fields($0)["range_end"] as? Int } == late[1])
    #expect(overlaps.first.map { Self.fields($0)["kept_frame"] as? Int } == capture.facts["ahead"] as? Int)
    let text = overlaps.first.flatMap { Self.texts($0, code: "tcp-overlap").first } ?? ""
    #expect(text.contains("stream bytes \(late[0])..<\(late[1])"))
    #expect(
      text.contains("frame \(capture.facts["ahead"] as? Int ?? 0)'s bytes (the first to arrive) were kept"))
    let resent = try #require(capture.facts["resent_range"] as? [Int])
    #expect(overlaps.last.map { Self.fields($0)["range_start"] as? Int } == resent[0])
    #expect(overlaps.last.map { Self.fields($0)["kept_frame"] as? Int } == capture.facts["first"] as? Int)
  }

  @Test func ipv4FragmentConflictIsNamedAndIpv6OverlapDropped() throws {
    let v4 = try Self.hostile("ipv4-overlap")
    let range = try #require(v4.facts["range"] as? [Int])
    let records = try Self.ndjson(v4.path, ["--payload-hex"])
    let datagram = try #require(records.first { $0["transport"] as? String == "udp" })
    #expect(datagram["payload"] as? String == v4.facts["payload"] as? String)
    let text = try #require(Self.texts(datagram, code: "fragment-conflict").first)
    #expect(text.contains("bytes \(range[0])..<\(range[1]) of the datagram"))
    #expect(text.contains("frame \(v4.facts["kept_frame"] as? Int ?? 0)'s bytes (first to arrive) were kept"))
    #expect(text.contains("frame \(v4.facts["dropped_frame"] as? Int ?? 0)'s dropped"))

    let v6 = try Self.hostile("ipv6-overlap")
    let v6Records = try Self.ndjson(v6.path)
    #expect(!v6Records.contains { $0["transport"] as? String == "udp" })
    let drop = try #require(v6Records.first { $0["message"] as? String == "ip.fragments-dropped" })
    #expect(Self.fields(drop)["reason"] as? String == "overlap")
    #expect(Self.texts(drop, code: "fragments-dropped").first?.contains("RFC 5722") == true)
  }

  // MARK: 6. WebSocket length

  @Test func absurdWebSocketLengthDoesNotSwallowTheDirection() throws {
    let capture = try Self.hostile("ws-huge-frame")
    let after = try #require(capture.facts["pongs_after"] as? [Int])
    let records = try Self.ndjson(capture.path)
    let huge = try #require(records.first { $0["frame"] as? Int == capture.facts["huge_frame"] as? Int })
    #expect((huge["error"] as? [String: Any])?["code"] as? String == "message-too-large")
    let pongs = records.filter { after.contains($0["frame"] as? Int ?? 0) }
    #expect(pongs.map { $0["message"] as? String } == ["heartbeat", "heartbeat", "heartbeat"])
  }

  // MARK: 7. Damage offsets

  @Test(arguments: ["bad-record", "bad-block"])
  func damageOffsetIsTheBadHeader(kind: String) throws {
    let capture = try Self.hostile(kind)
    let offset = try #require(capture.facts["bad_offset"] as? Int)
    let records = try #require(capture.facts["records"] as? Int)
    let result = try Pktbench.run(["decode", capture.path])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("stopped after record \(records) at byte offset \(offset):"), "\(result.stderr)")
  }

  // MARK: 8. Fuzzing

  /// `pktbench fuzz` with no --target, as scripts/fuzz-ci.sh runs it,
  /// fuzzes TCP reassembly too.
  @Test func defaultFuzzRunIncludesTCP() throws {
    let result = try Pktbench.run(["fuzz", "--iterations", "300", "--seed", "26"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.text.split(separator: "\n").contains { $0.hasPrefix("tcp ") })
  }
}
