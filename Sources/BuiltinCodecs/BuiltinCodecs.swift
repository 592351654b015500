import FalconEyeCodec
import LegCtrlCodec
import PacketKit
import RallieCodec
import RiderCodec

/// The codecs this repository ships, each bound to its concrete type here
/// (so the per-message calls run each codec's own specialised code). A
/// pktbench of one's own may take them, some of them, or none:
/// `Pktbench.main(codecs: CodecSet(BuiltinCodecs.calls + [.bound(MyCodec())]))`.
public enum BuiltinCodecs {
  public static var calls: [CodecCalls] {
    [.bound(RiderCodec()), .bound(LegCtrlCodec()), .bound(RallieCodec()), .bound(FalconEyeCodec())]
  }

  /// The four, as a set.
  public static var set: CodecSet { CodecSet(calls) }
}
