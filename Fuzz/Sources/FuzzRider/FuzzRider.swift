import BuiltinCodecs
import PacketFuzz

/// libFuzzer entry point for the rider target (see LibFuzzerEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  LibFuzzerEntry.testOneInput("rider", codecs: BuiltinCodecs.set, data, size)
}
