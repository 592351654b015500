import PktbenchCLI

#if canImport(Glibc)
  import Glibc
#endif

// A closed pipe (`pktbench ... | head`) must end quietly, not kill us.
signal(SIGPIPE, SIG_IGN)

#if canImport(Glibc)
  // glibc's mallopt and its parameters (malloc.h, which the Glibc module leaves out).
  @_silgen_name("mallopt") func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
  let M_TRIM_THRESHOLD: Int32 = -1
  let M_MMAP_THRESHOLD: Int32 = -3
  // Camera frames are messages of hundreds of KB, allocated and freed one
  // after another. glibc serves blocks that large with mmap and returns them
  // on free, so every message paid page faults and page clearing for fresh
  // memory. Serving them from the heap (and keeping freed heap) reuses the
  // same pages; the peak is what one message needs, as before.
  _ = mallopt(M_MMAP_THRESHOLD, 64 << 20)
  _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
#endif
exit(Pktbench.run(arguments: Array(CommandLine.arguments.dropFirst())))
