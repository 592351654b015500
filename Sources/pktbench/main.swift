import BuiltinCodecs
import PktbenchCLI

Pktbench.main(codecs: BuiltinCodecs.set)
