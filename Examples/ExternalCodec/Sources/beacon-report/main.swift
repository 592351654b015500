import BeaconCodec
import Foundation
import PacketAnalysis
import PacketCapture
import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A program on pktbench's libraries, without its command line: the
// sensor's readings straight off PacketCapture's payload stage, then the
// health report `pktbench analyze` prints, from PacketAnalysis.
let path = CommandLine.arguments.dropFirst().first ?? "Captures/beacon.pcap"

do {
  // Capture records in, payloads with their carriers out.
  let readings = ReadingLines(port: 7070)
  let stage = PayloadStage(consumer: readings)
  let reader = try PcapFileReader(path: path)
  reader.onNotice = { stage.notice($0) }
  _ = reader.read { stage.process($0) }
  stage.finish()
  print("")

  // The same file through the analysis: flows, rates, gaps, findings, verdict.
  let report = try CaptureAnalysis(codecs: CodecSet([.bound(BeaconCodec())])).report(of: [path])
  for line in TextReport.lines(report) { print(line) }
} catch {
  FileHandle.standardError.write(Data("beacon-report: \(error)\n".utf8))
  exit(2)
}
