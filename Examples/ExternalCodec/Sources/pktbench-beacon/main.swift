import BeaconCodec
import BuiltinCodecs
import PacketKit
import PktbenchCLI

// Every pktbench command, with the built-in codecs and Beacon.
Pktbench.main(codecs: CodecSet(BuiltinCodecs.calls + [.bound(BeaconCodec())]))
