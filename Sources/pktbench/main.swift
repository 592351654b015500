import PktbenchCLI

#if canImport(Glibc)
  import Glibc
#endif

// A closed pipe (`pktbench ... | head`) must end quietly, not kill us.
signal(SIGPIPE, SIG_IGN)
exit(Pktbench.run(arguments: Array(CommandLine.arguments.dropFirst())))
