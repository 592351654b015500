/// Every exit status pktbench uses, defined once, so that a script can tell
/// what happened from the status alone, the same for every command.
/// A closed output pipe is not here: pktbench then dies of SIGPIPE, as
/// tcpdump does (the shell shows 141).
public enum ExitStatus {
  /// Done: decoded, crafted, the report made, the expectations met.
  public static let ok: Int32 = 0
  /// Done, but the input or the peer was found wanting: a payload given
  /// alone that did not decode (or is larger than its codec takes; damaged
  /// payloads in a capture are output, as tshark and tcpdump exit 0 on
  /// them), a capture damaged part way (decoded up to the damage),
  /// `analyze --fail-on` findings, an expectation `send` did not see, a
  /// fuzz failure, a socket that could not be bound or reached.
  public static let failed: Int32 = 1
  /// An input could not be read at all: a missing file, a directory, not a
  /// capture, a closed standard input.
  public static let unreadable: Int32 = 2
  /// The command line is wrong (an unknown flag or codec, a bad filter,
  /// address, range or value); nothing was done. sysexits' EX_USAGE, which
  /// ArgumentParser also returns.
  public static let usage: Int32 = 64
  /// The output could not be written (a full disk, /dev/full, an I/O
  /// error). sysexits' EX_IOERR.
  public static let output: Int32 = 74
  /// Stopped by SIGINT or SIGTERM; what was read has been written out.
  public static let interrupted: Int32 = 130
}
