import Foundation
import Testing

/// Slicing a capture as a tshark user would: `-t` times against tshark's
/// own on the same capture, `-c` against tshark -c, `--start`/`--stop`
/// against editcap -A/-B, and several files naming each.
@Suite struct DecodeSliceTests {
  static func tshark(_ arguments: [String], environment: [String: String] = ["TZ": "UTC"]) throws -> [String]
  {
    guard let tshark = Pktbench.which("tshark") else { return [] }
    let result = try Pktbench.runProgram(tshark, arguments, environment: environment)
    #expect(result.status == 0, "tshark \(arguments): \(result.stderr)")
    return result.text.split(separator: "\n").map(String.init)
  }

  /// Frame number → the time text of a summary line (one token, or date and time).
  static func times(_ lines: [String], dated: Bool) -> [Int: String] {
    var times: [Int: String] = [:]
    for line in lines {
      let words = line.split(separator: " ")
      guard words.count > 2, let frame = Int(words[0]) else { continue }
      times[frame] = dated ? "\(words[1]) \(words[2])" : String(words[1])
    }
    return times
  }

  /// Each `-t` format against tshark's, in UTC and in a zone east of it
  /// (local formats must follow TZ). Relative times count from the first
  /// record (the TCP handshake's SYN in the WebSocket capture, not the
  /// first message).
  @Test(arguments: [
    ("r", "r"), ("a", "a"), ("ad", "ad"), ("u", "u"), ("ud", "ud"), ("e", "e"), ("d", "dd"), ("dd", "dd"),
  ])
  func timesAreTsharks(ours: String, theirs: String) throws {
    guard Pktbench.which("tshark") != nil else { return }
    for zone in ["UTC", "Asia/Kolkata"] {
      for capture in ["Captures/rider-20hz.pcap", "Captures/falconeye-ws.pcap"] {
        // `d` counts from the previous message shown; with one message per
        // record and every record shown, tshark's `dd` on the same frames.
        let select = ours.hasPrefix("d") ? ["-Y", "udp"] : []
        let result = try Pktbench.run(["decode", capture, "-t", ours], environment: ["TZ": zone])
        #expect(result.status == 0)
        let dated = ours.hasSuffix("d") && ours.count == 2 && ours != "dd"
        let mine = Self.times(result.text.split(separator: "\n").map(String.init), dated: dated)
        let shark = Self.times(
          try Self.tshark(["-r", capture, "-t", theirs] + select, environment: ["TZ": zone]), dated: dated)
        if ours.hasPrefix("d"), capture.contains("falconeye") { continue }
        #expect(mine.count > 10)
        for (frame, time) in mine {
          #expect(shark[frame] == time, "\(capture) -t \(ours) TZ=\(zone) frame \(frame)")
        }
      }
    }
  }

  @Test func deltaCountsFromThePreviousMessageShown() throws {
    guard Pktbench.which("tshark") != nil else { return }
    // Rider commands above 50 %: the same frames shown by tshark (picked by
    // frame number), whose `dd` is the delta from the previous one shown.
    let capture = "Captures/rider-20hz.pcap"
    let result = try Pktbench.run(["decode", capture, "-Y", "rider.left > 50", "-t", "d"])
    let mine = Self.times(result.text.split(separator: "\n").map(String.init), dated: false)
    #expect(mine.count > 3 && mine.count < 60)
    let frames = mine.keys.sorted().map { "frame.number == \($0)" }.joined(separator: " or ")
    let shark = Self.times(try Self.tshark(["-r", capture, "-t", "dd", "-Y", frames]), dated: false)
    #expect(mine == shark)
  }

  @Test func countStopsAfterNMessagesShown() throws {
    guard Pktbench.which("tshark") != nil else { return }
    let mine = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "-c", "7", "--format", "ndjson"])
    #expect(mine.status == 0)
    let frames = mine.text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }.compactMap { $0["frame"] as? Int }
    let shark = try Self.tshark([
      "-r", "Captures/rider-20hz.pcap", "-c", "7", "-T", "fields", "-e", "frame.number",
    ])
    #expect(frames == shark.compactMap { Int($0) } && frames.count == 7)
    // After -Y, and across files: N in all.
    let filtered = try Pktbench.run([
      "decode", "Captures/legctrl-udp.pcap", "-Y", "legctrl.state == \"ARMED\"", "-c", "3",
    ])
    #expect(filtered.text.split(separator: "\n").count == 3)
    #expect(filtered.text.split(separator: "\n").allSatisfy { $0.contains("state=ARMED") })
    let twoFiles = try Pktbench.run([
      "decode", "Captures/rallie-udp.pcap", "Captures/legctrl-udp.pcap", "-c", "15", "--format", "csv",
      "--fields", "file,frame",
    ])
    let rows = twoFiles.text.split(separator: "\r\n").dropFirst()
    #expect(rows.count == 15)
    #expect(rows.filter { $0.hasPrefix("Captures/rallie-udp.pcap,") }.count == 12)
    #expect(
      rows.suffix(3).map { String($0) } == [
        "Captures/legctrl-udp.pcap,1", "Captures/legctrl-udp.pcap,2", "Captures/legctrl-udp.pcap,3",
      ])
    #expect(try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "-c", "0"]).status == 64)
  }

  /// The same records as editcap -A/-B keeps, given as ISO times (UTC, or
  /// with an offset) or Unix seconds.
  @Test func startAndStopAreEditcaps() throws {
    guard let editcap = Pktbench.which("editcap"), Pktbench.which("tshark") != nil else { return }
    let sliced = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-slice-\(UUID()).pcap"
    ).path
    defer { try? FileManager.default.removeItem(atPath: sliced) }
    let cut = try Pktbench.runProgram(
      editcap,
      ["-A", "2026-11-22 02:52:42.5", "-B", "2026-11-22 02:52:43.75", "Captures/rider-20hz.pcap", sliced],
      environment: ["TZ": "UTC"])
    #expect(cut.status == 0)
    let kept = try Self.tshark(["-r", sliced, "-T", "fields", "-e", "frame.time_epoch"]).compactMap(
      Double.init)
    #expect(kept.count > 5 && kept.count < 60)
    for bounds in [
      ["--start", "2026-11-22 02:52:42.5", "--stop", "2026-11-22T02:52:43.75Z"],
      ["--start", "1795315962.5", "--stop", "2026-11-22T04:52:43.75+02:00"],
    ] {
      let result = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "--format", "ndjson"] + bounds)
      let times = result.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }.compactMap { $0["time"] as? Double }
      #expect(times.map { ($0 * 1e6).rounded() } == kept.map { ($0 * 1e6).rounded() }, "\(bounds)")
    }
    // analyze reads the same records.
    let analysed = try Pktbench.run([
      "analyze", "Captures/rider-20hz.pcap", "--format", "json", "--start", "2026-11-22 02:52:42.5", "--stop",
      "1795315963.75",
    ])
    let report = try JSONSerialization.jsonObject(with: Data(analysed.stdout)) as? [String: Any]
    #expect(report?["records"] as? Int == kept.count)
    let bad = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "--start", "yesterday"])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("--start 'yesterday' is not a time"))
  }

  @Test func severalFilesSayWhichFile() throws {
    let files = ["Captures/rallie-udp.pcap", "Captures/rider-20hz.pcap"]
    let text = try Pktbench.run(["decode"] + files).text.split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(text.first == "==> Captures/rallie-udp.pcap <==")
    #expect(text.contains("==> Captures/rider-20hz.pcap <=="))
    let ndjson = try Pktbench.run(["decode"] + files + ["--format", "ndjson"]).text.split(separator: "\n")
    let named = ndjson.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }.compactMap { $0["file"] as? String }
    #expect(named.count == ndjson.count)
    #expect(named.filter { $0 == files[0] }.count == 12 && named.filter { $0 == files[1] }.count == 64)
    let json = try Pktbench.run(["decode"] + files + ["--format", "json"])
    #expect(json.text.contains(#"{"file":"Captures/rider-20hz.pcap","frame":1,"#))
    let csv = try Pktbench.run(["decode"] + files + ["--format", "csv"]).text.split(separator: "\r\n")
    #expect(csv.first?.hasPrefix("file,frame,time,") == true)
    #expect(csv.count == 1 + 12 + 64, "one header row")
    // One file: no file key, no header line.
    let one = try Pktbench.run(["decode", files[0], "--format", "ndjson"])
    #expect(!one.text.contains(#""file""#))
  }
}
