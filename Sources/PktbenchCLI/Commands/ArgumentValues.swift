import ArgumentParser
import PacketDecode

// The libraries' values as ArgumentParser reads them from a command line:
// their own modules know nothing of argument parsing.

extension TimeFormat: ExpressibleByArgument {}
