import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Pktbench {
  /// Runs `pktbench` with these codecs and exits: the whole `main.swift`
  /// of a pktbench of one's own (`Examples/ExternalCodec/`):
  ///
  ///     Pktbench.main(codecs: CodecSet(BuiltinCodecs.calls + [.bound(BeaconCodec())]))
  public static func main(
    codecs: CodecSet, arguments: [String] = Array(CommandLine.arguments.dropFirst())
  ) -> Never {
    preparesProcess()
    #if canImport(Glibc)
      Glibc.exit(run(arguments: arguments, codecs: codecs))
    #else
      Darwin.exit(run(arguments: arguments, codecs: codecs))
    #endif
  }

  /// What a command-line run needs of the process.
  static func preparesProcess() {
    // A closed pipe (`pktbench ... | head`) must end quietly, not kill us.
    signal(SIGPIPE, SIG_IGN)
    #if canImport(Glibc)
      // Camera frames are messages of hundreds of KB, allocated and freed
      // one after another. glibc serves blocks that large with mmap and
      // returns them on free, so every message paid page faults and page
      // clearing for fresh memory. Serving them from the heap (and keeping
      // freed heap) reuses the same pages; the peak is what one message needs.
      _ = mallopt(mmapThreshold, 64 << 20)
      _ = mallopt(trimThreshold, 256 << 20)
    #endif
  }
}

#if canImport(Glibc)
  // glibc's mallopt and its parameters (malloc.h, which the Glibc module leaves out).
  @_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
  private let trimThreshold: Int32 = -1
  private let mmapThreshold: Int32 = -3
#endif
