import Foundation
import Testing

/// A BLE peripheral is one device across its connection handles: the app
/// disconnects and reconnects to the same LegCtrl peripheral (a new handle),
/// and `analyze` reads both connections into the one firmware model. The
/// trace is built by Captures/scripts' Scapy writers, not by pktbench.
@Suite(.enabled(if: Scapy.isInstalled, "needs python3 scapy"))
struct AnalyzeBLEReconnectTests {
  static let script = #"""
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import ble_central, ble_link, ble_make
    import ble_wire as wire

    def connection(trace, handle, t):
        server = ble_link.GattServer(ble_make.legctrl_database(), rx_mtu=247)
        central = ble_central.Central(trace, server, handle, "24:0a:c4:5e:71:3c", 0, 0x0024, t)
        central.exchange_mtu(517)
        _, characteristics, descriptors = central.discover()
        command = ble_make.value_handle(characteristics, wire.LEGCTRL_COMMAND)
        telemetry = ble_make.value_handle(characteristics, wire.LEGCTRL_TELEMETRY)
        firmware = ble_make.LegCtrlFirmware(central, central.connected_at + 37_000, telemetry,
                                            ble_make.descriptor(descriptors, 0x2902, telemetry))
        central.hooks.append(firmware.advance)
        central.t += 20_000
        central.write_request(ble_make.descriptor(descriptors, 0x2902, telemetry), b"\x01\x00")
        central.t += 200_000
        def send(payload):
            req = central.write_command(command, payload)
            firmware.receive(req["at_peer_us"] + 800, payload)
        send(wire.legctrl("arm"))
        start = central.t + 20_000
        for i in range(40):
            central.t = max(central.t + 1, start + i * 20_000)
            send(wire.legctrl_set_servo_ch0(1500))
        central.t += 60_000
        return central, firmware, send

    trace = ble_link.Trace(seed=7)
    first, _, _ = connection(trace, 0x0040, ble_make.LEGCTRL_START_US)
    done = first.disconnect()
    # The app reconnects to the same peripheral: a new connection handle.
    second, _, send = connection(trace, 0x0041, done + 400_000)
    send(wire.legctrl("disarm"))
    second.t += 300_000
    second.disconnect()
    trace.finish()
    trace.write_btsnoop(sys.argv[2])
    """#

  @Test func oneFirmwareAcrossTwoConnectionHandles() throws {
    let path = Live.temporaryPath(".btsnoop")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let scripts = Pktbench.root.appendingPathComponent("Captures/scripts").path
    let made = try Pktbench.runProgram("/usr/bin/env", ["python3", "-c", Self.script, scripts, path])
    #expect(made.status == 0, "\(made.stderr)")

    let report = try Analyze.run(path)
    #expect(report.devices.count == 1)
    let device = try #require(report.devices.first)
    #expect(device["endpoint"] as? String == "BLE peripheral 24:0A:C4:5E:71:3C")
    #expect(device["client_endpoints"] as? [String] == ["0x0040 central", "0x0041 central"])
    #expect(report.findings("legctrl.model-mismatch").isEmpty)
    // The drop while ARMED is the only thing wrong: no telemetry gap across the reconnect, no deadman.
    #expect(report.serious.map { $0["rule"] as? String } == ["legctrl.disconnect"], "\(report.serious)")

    let events = try DeviceTruth.timelineOf(path)
    #expect(events.allSatisfy { $0.json["mismatch"] == nil })
    let reconnect = try #require(events.last { $0.name == "reconnect" })
    #expect(reconnect.json["flow"] as? Int == 2)
    #expect(reconnect.state["state"] as? String == "DISARMED")
    // The second connection's ARM and servo stream run the same firmware again.
    let second = events.filter { $0.json["flow"] as? Int == 2 && $0.name == "executed" }
    #expect(second.count == 42, "ARM, 40 servo commands and DISARM")
    #expect(second.dropLast().allSatisfy { $0.state["state"] as? String == "ARMED" })
  }
}

enum Scapy {
  static var isInstalled: Bool {
    guard Pktbench.which("python3") != nil else { return false }
    return (try? Pktbench.runProgram("/usr/bin/env", ["python3", "-c", "import scapy.layers.bluetooth"]))?
      .status == 0
  }
}
