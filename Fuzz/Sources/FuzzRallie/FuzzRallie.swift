import BuiltinCodecs
import PacketFuzz

/// libFuzzer entry point for the rallie target (see LibFuzzerEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  LibFuzzerEntry.testOneInput("rallie", codecs: BuiltinCodecs.set, data, size)
}
