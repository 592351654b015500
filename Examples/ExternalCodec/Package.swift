// swift-tools-version:6.0
import PackageDescription

// A pktbench with one more codec, built outside the pktbench repository:
// the codec depends on pktbench's core (PacketKit) only; the executable
// adds it to the built-in codecs and runs pktbench's command line. A
// second program uses pktbench's libraries without the command line.
let package = Package(
  name: "ExternalCodec",
  platforms: [.macOS(.v13)],
  dependencies: [
    // A package of one's own would name a tagged version instead:
    // .package(url: "https://example.com/pktbench.git", from: "1.0.0")
    .package(name: "pktbench", path: "../..")
  ],
  targets: [
    .target(name: "BeaconCodec", dependencies: [.product(name: "PacketKit", package: "pktbench")]),
    .executableTarget(
      name: "pktbench-beacon",
      dependencies: [
        "BeaconCodec",
        .product(name: "PktbenchCLI", package: "pktbench"),
        .product(name: "BuiltinCodecs", package: "pktbench"),
      ]),
    // The capture's readings and its health report, from the libraries.
    .executableTarget(
      name: "beacon-report",
      dependencies: [
        "BeaconCodec",
        .product(name: "PacketCapture", package: "pktbench"),
        .product(name: "PacketAnalysis", package: "pktbench"),
        .product(name: "PacketKit", package: "pktbench"),
      ]),
    .testTarget(
      name: "BeaconCodecTests", dependencies: ["BeaconCodec", .product(name: "PacketKit", package: "pktbench")]),
    .testTarget(
      name: "BeaconReportTests",
      dependencies: [
        "BeaconCodec",
        .product(name: "PacketAnalysis", package: "pktbench"),
        .product(name: "PacketDecode", package: "pktbench"),
        .product(name: "PacketKit", package: "pktbench"),
      ]),
  ]
)
