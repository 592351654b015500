import BeaconCodec
import CodecRegistry
import PktbenchCLI

// Every pktbench command, with the built-in codecs and Beacon.
Pktbench.main(codecs: Codecs.builtins + [.bound(BeaconCodec())])
