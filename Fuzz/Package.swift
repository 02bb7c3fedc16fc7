// swift-tools-version:6.2
// libFuzzer harnesses for Visage's parsers, kept out of the main package so that its normal
// builds never see the fuzzer flags. Build and run them with `Tools/fuzz.sh`, which passes
// `-sanitize=fuzzer,address` and `--enable-testable-imports` (the geometry harness reads an
// internal type).
import PackageDescription

/// One executable per harness; its `main` hands its test function to libFuzzer (`FuzzDriver`).
func harness(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
  .executableTarget(name: name, dependencies: dependencies + ["FuzzDriver"], path: "Sources/\(name)")
}

let visage = Target.Dependency.product(name: "Visage", package: "Visage")
let tflite = Target.Dependency.product(name: "VisageTFLite", package: "Visage")
let runtime = Target.Dependency.product(name: "VisageRuntime", package: "Visage")
let imageIO = Target.Dependency.product(name: "VisageImageIO", package: "Visage")
// visage-server's request decoding (Server/), which needs neither NIO nor Hummingbird.
let requests = Target.Dependency.product(name: "VisageRequests", package: "VisageServer")

let package = Package(
  name: "VisageFuzz",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "Visage", path: ".."), .package(name: "VisageServer", path: "../Server")],
  targets: [
    .target(name: "FuzzDriver"),
    harness("FuzzTaskBundle", [tflite]),
    harness("FuzzModel", [tflite, runtime]),
    harness("FuzzGeometry", [visage]),
    harness("FuzzImage", [imageIO, visage]),
    harness("FuzzY4M", [imageIO, visage]),
    harness("FuzzNPY", [tflite, runtime]),
    harness("FuzzRecords", [imageIO, visage]),
    harness("FuzzRequests", [requests]),
  ]
)
