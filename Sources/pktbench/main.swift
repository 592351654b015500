import CodecRegistry
import PktbenchCLI

Pktbench.main(codecs: Codecs.builtins)
