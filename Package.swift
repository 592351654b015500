// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "pktbench",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "pktbench", targets: ["pktbench"]),
    // The core a codec of one's own is written against: FrameCodec, schemas,
    // dissection, errors, the device-model and analysis contracts. No I/O.
    .library(name: "PacketKit", targets: ["PacketKit"]),
    // The four codecs this repository ships, as `BuiltinCodecs.set`.
    .library(name: "BuiltinCodecs", targets: ["BuiltinCodecs"]),
    // Captures and sockets down to application payloads with their
    // carriers (`PayloadStage`), for programs of one's own.
    .library(name: "PacketCapture", targets: ["PacketCapture"]),
    // Decoded records and their output; what PacketAnalysis and PacketLive
    // share with their users (`CommandFailure`, `ExitStatus`, `OutputWriter`).
    .library(name: "PacketDecode", targets: ["PacketDecode"]),
    // `analyze` without the command line: `CaptureAnalysis` reads capture
    // files into an `AnalysisReport`; `TextReport`, `JSONReport`, `HTMLReport`.
    .library(name: "PacketAnalysis", targets: ["PacketAnalysis"]),
    // `listen` and `emulate` without the command line: `ListenRun` on a
    // `ListenConfiguration` (a UDP or WebSocket port, a device to play).
    .library(name: "PacketLive", targets: ["PacketLive"]),
    // The command line, for a pktbench with codecs of one's own:
    // `Pktbench.main(codecs: CodecSet(BuiltinCodecs.calls + [.bound(MyCodec())]))`.
    .library(name: "PktbenchCLI", targets: ["PktbenchCLI"]),
    // For the libFuzzer harnesses in Fuzz/ (a separate package).
    .library(name: "PacketFuzz", targets: ["PacketFuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    // wss:// for `send`, and `listen`/`emulate` serving wss with --cert/--key.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
  ],
  targets: [
    // Byte kernels in C with SSE vectors (base64, JSON string runs, ASCII
    // runs): the per-byte work of camera frames. Scalar loops elsewhere.
    .target(name: "CSIMD"),

    // The core: codec contract, schemas, dissection, diagnostics, JSON, checksums. No I/O.
    .target(name: "PacketKit", dependencies: ["CSIMD"]),

    // Codec plugins: one folder each, depending on the core only.
    .target(
      name: "RiderCodec", dependencies: ["PacketKit"], path: "Plugins/RiderCodec"),
    .target(
      name: "LegCtrlCodec", dependencies: ["PacketKit"], path: "Plugins/LegCtrlCodec"),
    .target(
      name: "RallieCodec", dependencies: ["PacketKit"], path: "Plugins/RallieCodec"),
    .target(
      name: "FalconEyeCodec",
      dependencies: ["PacketKit", "CSIMD", .product(name: "Crypto", package: "swift-crypto")],
      path: "Plugins/FalconEyeCodec"
    ),

    // Codecs described by spec files (YAML or JSON), loaded at run time.
    .target(
      name: "SpecCodecs", dependencies: ["PacketKit", "CZlib", .product(name: "Yams", package: "Yams")]),

    // The codecs this repository ships.
    .target(
      name: "BuiltinCodecs",
      dependencies: ["PacketKit", "RiderCodec", "LegCtrlCodec", "RallieCodec", "FalconEyeCodec"]),

    // A C stream over bytes already read from a descriptor, then the rest
    // (fopencookie needs _GNU_SOURCE, which Swift's Glibc module leaves out).
    .target(name: "CStream"),

    // System libraries.
    .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // Captures and sockets down to application payloads.
    .target(
      name: "PacketCapture", dependencies: ["PacketKit", "CPcap", "CZlib", "CSIMD", "CStream"]),

    // Generators, mutators, shrinking and the fuzz runner.
    .target(
      name: "PacketFuzz", dependencies: ["PacketKit", "PacketCapture"]),

    // Captures to decoded records and their output: the capture pipeline,
    // routing to codecs, the display filter, the output formats, `-w`.
    // The per-record path stays inside this module.
    .target(name: "PacketDecode", dependencies: ["PacketKit", "PacketCapture", "CPcap"]),

    // The health report: flows, devices (their plugins' models), rates,
    // gaps, findings; as text, JSON, HTML and the device-event timeline.
    .target(name: "PacketAnalysis", dependencies: ["PacketKit", "PacketCapture", "PacketDecode"]),

    // Live sockets: the UDP and WebSocket listeners (`listen`), the device
    // emulator (`emulate`), the sender (`send`) and `replay`.
    .target(
      name: "PacketLive",
      dependencies: [
        "PacketKit", "PacketCapture", "PacketDecode",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),

    // The commands, as a library so tests can call them.
    .target(
      name: "PktbenchCLI",
      dependencies: [
        "PacketKit", "PacketCapture", "PacketDecode", "PacketAnalysis", "PacketLive", "PacketFuzz", "SpecCodecs",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        // The event loops `send` and `replay` run on; TLS from --cert and --key.
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    .executableTarget(name: "pktbench", dependencies: ["PktbenchCLI", "BuiltinCodecs"]),

    .testTarget(name: "PacketKitTests", dependencies: ["PacketKit", "CSIMD"]),
    .testTarget(name: "RiderCodecTests", dependencies: ["RiderCodec", "PacketKit"]),
    .testTarget(name: "LegCtrlCodecTests", dependencies: ["LegCtrlCodec", "PacketKit"]),
    .testTarget(name: "RallieCodecTests", dependencies: ["RallieCodec", "PacketKit"]),
    .testTarget(name: "FalconEyeCodecTests", dependencies: ["FalconEyeCodec", "PacketKit"]),
    .testTarget(name: "PacketCaptureTests", dependencies: ["PacketCapture", "PacketKit"]),
    .testTarget(name: "PacketDecodeTests", dependencies: ["PacketDecode", "BuiltinCodecs", "PacketKit"]),
    .testTarget(
      name: "PacketAnalysisTests", dependencies: ["PacketAnalysis", "PacketDecode", "BuiltinCodecs", "PacketKit"]),
    .testTarget(name: "PacketLiveTests", dependencies: ["PacketLive", "PacketDecode", "BuiltinCodecs", "PacketKit"]),
    .testTarget(
      name: "PktbenchCLITests",
      dependencies: ["PktbenchCLI", "PacketDecode", "PacketLive", "BuiltinCodecs", "PacketKit"]
    ),
    .testTarget(
      name: "PacketFuzzTests", dependencies: ["PacketFuzz", "BuiltinCodecs", "PacketKit", "LegCtrlCodec", "RallieCodec"],
      exclude: ["Regressions"]  // inputs read by path from the tests, not resources
    ),
    .testTarget(name: "EndToEndTests", dependencies: ["PacketKit"]),
    .testTarget(
      name: "SpecCodecsTests",
      dependencies: ["SpecCodecs", "PacketKit", "LegCtrlCodec", "RallieCodec", "PacketFuzz", "BuiltinCodecs"]),
  ]
)
