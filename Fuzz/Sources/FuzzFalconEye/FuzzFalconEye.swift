import BuiltinCodecs
import PacketFuzz

/// libFuzzer entry point for the falconeye target (see LibFuzzerEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  LibFuzzerEntry.testOneInput("falconeye", codecs: BuiltinCodecs.set, data, size)
}
