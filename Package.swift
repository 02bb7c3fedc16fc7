// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Visage",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "VisageRuntime", targets: ["VisageRuntime"]),
    .library(name: "VisageTFLite", targets: ["VisageTFLite"]),
    .library(name: "Visage", targets: ["Visage"]),
    .library(name: "VisageImageIO", targets: ["VisageImageIO"]),
    .executable(name: "visage", targets: ["visage"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    // MARK: System libraries

    // OpenBLAS's cblas on Linux; Apple platforms use Accelerate instead (see GEMM.swift).
    .systemLibrary(
      name: "CBLAS", pkgConfig: "openblas",
      providers: [.apt(["libopenblas-dev"])]),
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
    .systemLibrary(
      name: "CJPEG", pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),

    // MARK: Libraries

    // CPU placement and spin-wait hints for the thread pool (GNU calls Swift cannot see).
    .target(name: "CThreads"),

    // Maths on raw float buffers: no graphs, no file formats.
    .target(
      name: "VisageKernels",
      dependencies: [
        .target(name: "CBLAS", condition: .when(platforms: [.linux])),
        "CThreads",
        .product(name: "RealModule", package: "swift-numerics"),
      ],
      linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // Graphs, operators, memory planning and the interpreter: no file formats.
    .target(name: "VisageRuntime", dependencies: ["VisageKernels"]),
    // .task bundles and .tflite flatbuffers turned into runtime graphs.
    .target(name: "VisageTFLite", dependencies: ["VisageRuntime"]),
    // The face stages (detector, landmarker, ...) and the image type they take: no codecs,
    // no flatbuffer parsing of their own.
    .target(name: "Visage", dependencies: ["VisageTFLite"]),
    // PNG and JPEG files to `VisionImage` and back (libpng, libjpeg-turbo).
    .target(name: "VisageImageIO", dependencies: ["Visage", "CPNG", "CJPEG"]),

    // MARK: Executables

    .executableTarget(
      name: "visage",
      dependencies: [
        "Visage", "VisageImageIO", "VisageTFLite", "VisageRuntime",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    // MARK: Tests

    .target(
      name: "VisageTestSupport", dependencies: ["VisageRuntime", "VisageTFLite"], path: "Tests/VisageTestSupport"),
    .testTarget(
      name: "VisageKernelsTests", dependencies: ["VisageKernels", "VisageTestSupport"]),
    .testTarget(
      name: "VisageTFLiteTests",
      dependencies: ["VisageTFLite", "VisageRuntime", "VisageTestSupport"]),
    .testTarget(
      name: "VisageTests",
      dependencies: ["Visage", "VisageImageIO", "VisageTFLite", "VisageRuntime", "VisageTestSupport"]),
    .testTarget(
      name: "VisageImageIOTests", dependencies: ["VisageImageIO", "Visage", "VisageTestSupport"]),
    .testTarget(
      name: "VisageRuntimeTests",
      dependencies: ["VisageTFLite", "VisageRuntime", "VisageTestSupport"]),
    // Runs the built `visage` executable the way scripts do: arguments, stdin, stdout,
    // stderr and exit status. Depending on the executable target makes `swift test` build it.
    .testTarget(
      name: "VisageCLITests", dependencies: ["visage", "VisageImageIO", "Visage", "VisageRuntime", "VisageTestSupport"]),
  ]
)
