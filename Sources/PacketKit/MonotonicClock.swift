#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Monotonic nanoseconds, for intervals, rates and deadlines (the wall
/// clock can be stepped by NTP).
public func monotonicNanoseconds() -> UInt64 {
  nanoseconds(CLOCK_MONOTONIC)
}

/// Monotonic nanoseconds at the clock tick's resolution (a few
/// milliseconds on Linux): enough for the fuzzer's quarter-second bound on
/// one input, which reads the clock twice per input, at a fraction of the cost.
public func coarseMonotonicNanoseconds() -> UInt64 {
  #if os(Linux)
    nanoseconds(CLOCK_MONOTONIC_COARSE)
  #else
    nanoseconds(CLOCK_MONOTONIC)
  #endif
}

private func nanoseconds(_ clock: clockid_t) -> UInt64 {
  var spec = timespec()
  clock_gettime(clock, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
