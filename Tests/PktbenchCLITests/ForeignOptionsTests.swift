import BuiltinCodecs
import PacketDecode
import Testing

@testable import PktbenchCLI

/// tshark's and tcpdump's options get the pktbench way of asking the same
/// thing, as one line, instead of "Unknown option".
@Suite struct ForeignOptionsTests {
  @Test func tsharkFieldsBecomeColumnsWithTheSameFields() {
    let hint = ForeignOptions.hint(["decode", "f.pcap", "-T", "fields", "-e", "frame", "-e", "rider.left"])
    #expect(hint?.contains("--format tsv --fields frame,rider.left") == true)
  }

  @Test func statisticsQuietAndDecodeAs() {
    #expect(ForeignOptions.hint(["decode", "f.pcap", "-z", "io,phs"])?.contains("--stats") == true)
    #expect(ForeignOptions.hint(["analyze", "f.pcap", "-q"])?.contains("--stats") == true)
    #expect(
      ForeignOptions.hint(["decode", "f.pcap", "-d", "udp.port==9000,legctrl"])?.contains(
        "--decode-as udp:9000=legctrl") == true)
    #expect(ForeignOptions.hint(["decode", "f.pcap", "-T", "json"])?.contains("--format json") == true)
    #expect(ForeignOptions.hint(["decode", "f.pcap", "-X"])?.contains("-x") == true)
  }

  /// What pktbench takes itself is not foreign: `-q` on the live commands,
  /// anything after `--`, and commands that read no traffic.
  @Test func pktbenchsOwnOptionsPass() {
    #expect(ForeignOptions.hint(["capture", "-i", "lo", "-q"]) == nil)
    #expect(ForeignOptions.hint(["decode", "f.pcap", "-V", "-x", "-c", "3", "-Y", "rider"]) == nil)
    #expect(ForeignOptions.hint(["decode", "--", "-z"]) == nil)
    #expect(ForeignOptions.hint(["craft", "drive", "-e"]) == nil)
  }

  /// Through the command line: one line on stderr, exit status 64.
  @Test func theCommandLineSaysItInOneLineWithUsageStatus() {
    #expect(
      Pktbench.run(arguments: ["decode", "f.pcap", "-z", "conv,udp"], codecs: BuiltinCodecs.set)
        == ExitStatus.usage)
  }
}
