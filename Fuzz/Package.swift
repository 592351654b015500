// swift-tools-version:6.0
// Coverage-guided libFuzzer harnesses, one per codec (and per parser, the
// display filter's included).
// A separate package because a harness has no `main`: libFuzzer supplies
// it, so these only link with --sanitize=fuzzer. Build and run with
// ../scripts/libfuzzer.sh NAME SECONDS.
import PackageDescription

let harnesses = [
  "FuzzRider", "FuzzLegCtrl", "FuzzRallie", "FuzzFalconEye", "FuzzPcap", "FuzzWebSocket", "FuzzHCI",
  "FuzzPacketLogger", "FuzzFilter",
]

let package = Package(
  name: "pktbench-fuzz",
  dependencies: [.package(name: "pktbench", path: "..")],
  targets: harnesses.map { name in
    .executableTarget(
      name: name,
      dependencies: [
        .product(name: "PacketFuzz", package: "pktbench"), .product(name: "BuiltinCodecs", package: "pktbench"),
      ],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    )
  }
)
