import BuiltinCodecs
import PacketFuzz

/// libFuzzer entry point for the hci target (see LibFuzzerEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  LibFuzzerEntry.testOneInput("hci", codecs: BuiltinCodecs.set, data, size)
}
