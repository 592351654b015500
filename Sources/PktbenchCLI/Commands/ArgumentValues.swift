import ArgumentParser
import PacketDecode
import PacketLive

// The libraries' values as ArgumentParser reads them from a command line:
// their own modules know nothing of argument parsing.

extension TimeFormat: ExpressibleByArgument {}

extension LiveOutputSettings.Format: ExpressibleByArgument {}

extension DurationArgument: ExpressibleByArgument {
  package static var defaultCompletionKind: CompletionKind { .default }
}

extension ByteCountArgument: ExpressibleByArgument {
  package static var defaultCompletionKind: CompletionKind { .default }
}
