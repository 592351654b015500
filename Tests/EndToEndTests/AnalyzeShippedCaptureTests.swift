import Foundation
import Testing

/// `pktbench analyze` on the shipped captures: every expectation comes from
/// how the capture was made (Captures/expected/*.json, the real capture's
/// README and expected json), not from pktbench's own output.
@Suite struct AnalyzeShippedCaptureTests {
  /// The same LegCtrl session shape carried over UDP and over BLE (btsnoop
  /// and an HCI pcapng): the deadman gap is found at the fixture's frames.
  @Test(arguments: [
    ("Captures/expected/legctrl-udp.json", "Captures/legctrl-udp.pcap"),
    ("Captures/ble/expected/legctrl-session.json", "Captures/ble/legctrl-session.btsnoop"),
    ("Captures/ble/expected/legctrl-session-pcapng.json", "Captures/ble/legctrl-session.pcapng"),
  ])
  func legctrlDeadmanGapAtTheFixturesFrames(fixturePath: String, capture: String) throws {
    let fixture = try Analyze.fixture(fixturePath)
    let messages = try #require(fixture["messages"] as? [[String: Any]])
    let commands: Set<String> = ["arm", "disarm", "set_servo_ch0", "ping"]
    let trip = try #require(
      messages.first {
        let fields = $0["fields"] as? [String: Any]
        return fields?["state"] as? String == "FAULT" && fields?["error_code"] as? String == "DEADMAN_TIMEOUT"
      })
    let tripFrame = try #require(trip["frame"] as? Int)
    let before = try #require(
      messages.last {
        commands.contains($0["message"] as? String ?? "") && ($0["frame"] as? Int ?? 0) < tripFrame
      })
    let after = try #require(
      messages.first {
        commands.contains($0["message"] as? String ?? "") && ($0["frame"] as? Int ?? 0) > tripFrame
      })

    let report = try Analyze.run(capture)
    #expect(report.status == 0)
    let gaps = report.findings("legctrl.deadman-gap")
    #expect(gaps.count == 1)
    let gap = try #require(gaps.first)
    #expect(gap["severity"] as? String == "error")
    #expect(gap["frame"] as? Int == before["frame"] as? Int)
    #expect(abs((gap["time"] as? Double ?? 0) - (before["time"] as? Double ?? -1)) < 2e-6)
    let details = Analyze.details(gap)
    #expect(details["fault_frame"] as? Int == tripFrame)
    #expect(details["next_command_frame"] as? Int == after["frame"] as? Int)
    #expect(details["fault_late"] as? Bool == false)
    let tripDelay = (trip["time"] as? Double ?? 0) - (before["time"] as? Double ?? 0)
    #expect(abs((details["fault_after_s"] as? Double ?? 0) - tripDelay) < 2e-6)
    // Nothing else in this capture is wrong: its device side is a model of
    // the real firmware (docs/protocols.md §5), which reports age 0 whenever it
    // is DISARMED (before any command that counts, after DISARM), and
    // pktbench's firmware model must find nothing to contradict.
    let disarmedAges = messages.compactMap { message -> Int? in
      let fields = message["fields"] as? [String: Any]
      return fields?["state"] as? String == "DISARMED" ? fields?["last_cmd_age_ms"] as? Int : nil
    }
    #expect(!disarmedAges.isEmpty && disarmedAges.allSatisfy { $0 == 0 }, "the fixture: \(disarmedAges)")
    #expect(report.findings("legctrl.model-mismatch").isEmpty, "\(report.findings("legctrl.model-mismatch"))")
    #expect(report.serious.count == 1, "\(report.serious)")
  }

  /// No shipped capture holds a device answer that pktbench's device
  /// models say the real device would never give: the LegCtrl ones are
  /// made by models of the real firmware (docs/protocols.md §5, Captures/README.md).
  @Test func noShippedCaptureContradictsTheDeviceModels() throws {
    let root = Pktbench.root.appendingPathComponent("Captures")
    let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    let captures = files.filter { name in [".pcap", ".pcapng", ".btsnoop"].contains { name.hasSuffix($0) } }
    for legctrl in ["legctrl-udp.pcap", "field-session.pcapng", "ble/legctrl-session.btsnoop"] {
      #expect(captures.contains(legctrl), "\(captures)")
    }
    for capture in captures.sorted() {
      let report = try Analyze.run("Captures/\(capture)")
      let mismatches = report.findings.filter { ($0["rule"] as? String ?? "").hasSuffix(".model-mismatch") }
      #expect(mismatches.isEmpty, "\(capture): \(mismatches)")
    }
  }

  /// A steady 20 Hz stream whose only trouble is the robot's: the `move`
  /// variant asking for speed stops it (the robot reads only left/right,
  /// docs/protocols.md §5), and it ignores the legacy text form.
  @Test func riderAtTwentyHertzKeepsItsRateAndTheMoveVariantStopsTheRobot() throws {
    let fixture = try Analyze.fixture("Captures/expected/rider-20hz.json")
    let messages = try #require(fixture["messages"] as? [[String: Any]])
    let times = messages.compactMap { $0["time"] as? Double }
    let expectedRate = Double(times.count - 1) / ((times.last ?? 0) - (times.first ?? 0))
    let moving = messages.filter {
      $0["message"] as? String == "move" && (($0["fields"] as? [String: Any])?["speed"] as? Double ?? 0) != 0
    }
    let legacy = messages.filter { $0["message"] as? String == "legacy" }

    let report = try Analyze.run("Captures/rider-20hz.pcap")
    #expect(report.status == 0)
    #expect(report.serious.map { $0["rule"] as? String } == ["rider.move-stops"])
    #expect(report.findings("rider.move-stops").first?["frame"] as? Int == moving.first?["frame"] as? Int)
    let ignored = try #require(report.findings("rider.ignored").first)
    #expect(ignored["severity"] as? String == "note", "the robot stood still")
    #expect(ignored["frames"] as? [Int] == legacy.compactMap { $0["frame"] as? Int })
    #expect(report.json["verdict"] as? String == "warning")
    let flow = try #require(report.flows.first)
    let series = try #require(
      (flow["series"] as? [[String: Any]])?.first { $0["name"] as? String == "commands" })
    #expect(series["count"] as? Int == messages.count)
    let rate = try #require(series["rate_hz"] as? Double)
    #expect(abs(rate - 20) < 0.5)
    #expect(abs((series["mean_rate_hz"] as? Double ?? 0) - expectedRate) < 1e-6 * expectedRate)
    #expect(series["rate_verdict"] as? String == "ok")
  }

  @Test func rallieResponsesMatchedWithLatencyAndVariants() throws {
    let fixture = try Analyze.fixture("Captures/expected/rallie-udp.json")
    let messages = try #require(fixture["messages"] as? [[String: Any]])
    var want: [(command: Int, response: Int, code: String, latency: Double, variant: String)] = []
    var variants: [String: [String: Int]] = ["app": [:], "machine": [:]]
    var pending: [String: Any]?
    for message in messages {
      let fields = message["fields"] as? [String: Any] ?? [:]
      let variant = fields["check_variant"] as? String ?? "?"
      if message["message"] as? String == "command" {
        pending = message
        variants["app", default: [:]][variant, default: 0] += 1
      } else if let command = pending {
        variants["machine", default: [:]][variant, default: 0] += 1
        let commandFields = command["fields"] as? [String: Any] ?? [:]
        want.append(
          (
            command["frame"] as? Int ?? 0, message["frame"] as? Int ?? 0, fields["code"] as? String ?? "",
            (message["time"] as? Double ?? 0) - (command["time"] as? Double ?? 0),
            commandFields["check_variant"] as? String ?? ""
          ))
        pending = nil
      }
    }

    let report = try Analyze.run("Captures/rallie-udp.pcap")
    let flow = try #require(report.flows.first)
    let facts = try #require(report.facts(of: flow))
    let exchanges = try #require(facts["exchanges"] as? [[String: Any]])
    #expect(exchanges.count == want.count)
    for (got, expected) in zip(exchanges, want) {
      #expect(got["command_frame"] as? Int == expected.command)
      #expect(got["response_frame"] as? Int == expected.response)
      #expect(got["code"] as? String == expected.code)
      #expect(got["variant"] as? String == expected.variant)
      #expect(abs((got["latency_s"] as? Double ?? -1) - expected.latency) < 2e-6)
    }
    let checkVariants = try #require(facts["check_variants"] as? [String: [String: Int]])
    #expect(checkVariants == variants)
    // The one rejected command is a warning; nothing else is wrong.
    let rejected = try #require(want.first { $0.code == "rejected" })
    let findings = report.serious
    #expect(findings.count == 1, "\(findings)")
    #expect(findings.first?["rule"] as? String == "rallie.rejected")
    #expect(findings.first?["frames"] as? [Int] == [rejected.command, rejected.response])
  }

  @Test func falconEyeSessionHasOnlyNotes() throws {
    for capture in ["Captures/falconeye-ws.pcap", "Captures/falconeye-ws-deflate.pcap"] {
      let report = try Analyze.run(capture)
      #expect(report.serious.isEmpty, "\(capture): \(report.serious)")
      // Its close was 1000 from the client, answered by the server (fixture events).
      let close = try #require(report.findings("ws.close").first)
      #expect(Analyze.details(close)["code"] as? Int == 1000)
      #expect(Analyze.details(close)["by"] as? String == "client")
      #expect(report.findings("falconeye.plain-ws").count == 1)
    }
  }

  @Test func fieldSessionFindsTheDeadmanAndTheRiderThatStoppedSending() throws {
    let fixture = try Analyze.fixture("Captures/expected/field-session.json")
    let messages = try #require(fixture["messages"] as? [[String: Any]])
    let rider = messages.filter { $0["codec"] as? String == "rider" }
    let lastRider = try #require(rider.last)
    let report = try Analyze.run("Captures/field-session.pcapng")
    #expect(report.flows.count == 4)
    // The app's last commands were a move asking for speed, which the robot
    // applies as 0/0 (it reads only left/right), then the legacy text form it
    // ignores: the robot stood still when the app stopped sending, and the
    // capture ran on for more than the watchdog's 1.0 s, so its stop is certain.
    let move = try #require(rider.last { $0["message"] as? String == "move" })
    #expect(report.findings("rider.move-stops").first?["frame"] as? Int == move["frame"] as? Int)
    #expect(report.findings("rider.ignored").first?["frame"] as? Int == lastRider["frame"] as? Int)
    #expect(report.findings("rider.ended-moving").isEmpty)
    let riderFlow = try #require(report.flows.first { $0["protocol"] as? String == "rider" })
    #expect(report.facts(of: riderFlow)?["watchdog_stops"] as? Int == 1)
    #expect(report.findings("legctrl.deadman-gap").count == 1)
    #expect(report.findings("rider.watchdog-gap").isEmpty)
  }

  @Test func realServerEarlyAuthDroppedThenClosed1008() throws {
    guard Analyze.hasRealCapture else { return }
    let expected = try Analyze.fixture(Analyze.realExpected)
    let messages = try #require(expected["messages"] as? [[String: Any]])
    let early = try #require(
      messages.first { $0["connection"] as? String == "early" && $0["message"] as? String == "authRequest" })
    let deviceId = try #require((early["fields"] as? [String: Any])?["deviceId"] as? String)

    let report = try Analyze.run(Analyze.realCapture)
    let flow = try #require(report.flow(withFact: "device_id", equal: deviceId))
    let findings = report.findings(inFlow: flow)
    let close = try #require(findings.first { $0["rule"] as? String == "ws.close" })
    #expect(close["severity"] as? String == "error")
    let details = Analyze.details(close)
    #expect(details["code"] as? Int == 1008)
    #expect(details["by"] as? String == "server")
    #expect(details["authenticated"] as? Bool == false)
    let request = try #require(details["auth_request_frame"] as? Int)
    #expect((close["frames"] as? [Int] ?? []).contains(request))
    #expect((close["text"] as? String ?? "").contains("authRequest at frame \(request)"))
    // README: the server closes the unauthenticated socket 10 s later.
    #expect(abs((details["after_handshake_s"] as? Double ?? 0) - 10) < 0.1)
    // The server's own close confirms the drop (README: "the message is
    // dropped"): one auth-dropped finding at the request, confirmed by the
    // 1008, and no longer a mere "unanswered" one.
    let dropped = try #require(findings.first { $0["rule"] as? String == "falconeye.auth-dropped" })
    #expect(dropped["severity"] as? String == "error")
    #expect(dropped["frame"] as? Int == request)
    #expect(Analyze.details(dropped)["confirmed_by_frame"] as? Int == close["frame"] as? Int)
    #expect(!findings.contains { $0["rule"] as? String == "falconeye.auth-unanswered" })
    // tshark agrees that frame is a masked (client) text message.
    if let tshark = Pktbench.which("tshark") {
      let shark = try Pktbench.runProgram(
        tshark,
        [
          "-r", Analyze.realCapture, "-d", "tcp.port==8000,http", "-Y", "frame.number==\(request)", "-T",
          "fields",
          "-e", "websocket.opcode", "-e", "websocket.mask",
        ])
      #expect(shark.text.trimmingCharacters(in: .whitespacesAndNewlines) == "1\t1", "\(shark.text)")
    }
  }

  @Test func realServerBigCameraFrameClosed1009() throws {
    guard Analyze.hasRealCapture else { return }
    let expected = try Analyze.fixture(Analyze.realExpected)
    let messages = try #require(expected["messages"] as? [[String: Any]])
    let frames = messages.filter {
      $0["connection"] as? String == "big-frame" && $0["message"] as? String == "cameraFrame"
    }
    let big = try #require(frames.last?["envelope_bytes"] as? Int)
    let passed = try #require(frames.first?["envelope_bytes"] as? Int)
    let auth = try #require(
      messages.first {
        $0["connection"] as? String == "big-frame" && $0["message"] as? String == "authRequest"
      })
    let deviceId = try #require((auth["fields"] as? [String: Any])?["deviceId"] as? String)

    let report = try Analyze.run(Analyze.realCapture)
    let flow = try #require(report.flow(withFact: "device_id", equal: deviceId))
    let close = try #require(report.findings(inFlow: flow).first { $0["rule"] as? String == "ws.close" })
    let details = Analyze.details(close)
    #expect(close["severity"] as? String == "error")
    #expect(details["code"] as? Int == 1009)
    #expect(details["by"] as? String == "server")
    #expect(details["message_bytes"] as? Int == big)
    #expect(details["largest_passed_bytes"] as? Int == passed)
    let text = close["text"] as? String ?? ""
    #expect(text.contains("16,429 bytes") && text.contains("frame limit") && text.contains("16 KiB"))
    let messageFrame = try #require(details["message_frame"] as? Int)
    #expect((close["frames"] as? [Int] ?? []).contains(messageFrame))
  }
}
