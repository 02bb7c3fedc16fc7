// swift-tools-version:6.2
// 6.2 or later: SwiftPM accepts the per-ISA copies' `unsafeFlags` in a versioned dependency
// only from tools version 6.2 on.
import PackageDescription

// The hot SIMD loops (Sources/VisageMicroKernels) compiled once more per level, each from a
// symlink to the same folder; VisageKernels picks one copy at run time (see
// InstructionSet.swift). On x86-64 Linux, one copy per x86-64 level (AVX2, AVX-512);
// everywhere else, one fused copy that arm64 runs (every AArch64 CPU has NEON's fused
// multiply-add) and other architectures build but never pick. The copies define VISAGE_FMA:
// their dot products fuse each multiply-add (FloatVector.swift), while the baseline stays
// bit-identical to TFLite's reference kernels. The fused copy needs no unsafe flags, so an
// app for arm64 gets it whatever machine builds it. `#if` here tests the machine that builds,
// so a cross build from x86-64 Linux to another architecture names its target with
// VISAGE_TARGET_ARCH (Tools/arm64 sets `arm64`), and gets the fused copy.
// These copies must stay pointer-and-SIMD code with no arrays or other generic
// standard-library types: generic code specialized in two copies becomes a weak symbol
// the linker keeps once, and the baseline path could then run AVX-512 instructions.
// `.ci/check-isa-symbols` checks that with `nm`.
#if arch(x86_64) && os(Linux)
  let targetsX86Linux = (Context.environment["VISAGE_TARGET_ARCH"] ?? "x86_64") == "x86_64"
#else
  let targetsX86Linux = false
#endif
let instructionSetCopies: [(name: String, cpu: String?)] =
  targetsX86Linux
  ? [("VisageMicroKernelsAVX2", "haswell"), ("VisageMicroKernelsAVX512", "skylake-avx512")]
  : [("VisageMicroKernelsFMA", nil)]

// Platforms with no ImageIO, where VisageImageIO decodes with libpng and libjpeg-turbo.
let nonApple: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

let package = Package(
  name: "Visage",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "VisageRuntime", targets: ["VisageRuntime"]),
    .library(name: "VisageTFLite", targets: ["VisageTFLite"]),
    .library(name: "Visage", targets: ["Visage"]),
    .library(name: "VisageImageIO", targets: ["VisageImageIO"]),
    .library(name: "VisageMLKit", targets: ["VisageMLKit"]),
    .library(name: "VisageReports", targets: ["VisageReports"]),
    .library(name: "VisageHosting", targets: ["VisageHosting"]),
    .library(name: "VisageCommandLine", targets: ["VisageCommandLine"]),
    .executable(name: "visage", targets: ["visage"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // `swift package generate-documentation --target Visage` (the DocC catalogs; .ci/run checks
    // that it builds with no warnings). A plugin only: nothing of it is linked.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // MARK: System libraries

    // OpenBLAS's cblas on Linux; Apple platforms use Accelerate instead (see GEMM.swift).
    .systemLibrary(
      name: "CBLAS", pkgConfig: "openblas",
      providers: [.apt(["libopenblas-dev"])]),
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev", "libdeflate-dev"]), .brew(["libpng", "libdeflate"])]),
    .systemLibrary(
      name: "CJPEG", pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),

    // MARK: Libraries

    // CPU placement and spin-wait hints for the thread pool (GNU calls Swift cannot see).
    .target(name: "CThreads"),
    // glibc's malloc settings for the command line's batches of large photos.
    .target(name: "CAllocator"),

    // stb_image, the decoder of MediaPipe's Python `Image.create_from_file`, compiled from the
    // header Tools/stb-header puts in .build-deps (else the system's <stb/stb_image.h>); with
    // neither, the target builds and says the decoder is missing (see STBImage.swift).
    .target(
      name: "CSTBImage", cSettings: [.headerSearchPath("../../.build-deps/include")],
      linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),

    // The CPU check and the plain structs the micro-kernel copies share.
    .target(name: "CVisageISA"),
    // The micro-kernels at the target's baseline (and their source for the other copies).
    .target(name: "VisageMicroKernels", dependencies: ["CVisageISA"]),

    // Maths on raw float buffers: no graphs, no file formats.
    .target(
      name: "VisageKernels",
      dependencies: [
        .target(name: "CBLAS", condition: .when(platforms: [.linux])),
        "CThreads", "CVisageISA", "VisageMicroKernels",
        .product(name: "RealModule", package: "swift-numerics"),
      ] + instructionSetCopies.map { .target(name: $0.name) },
      linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // Graphs, operators, memory planning and the interpreter: no file formats.
    .target(name: "VisageRuntime", dependencies: ["VisageKernels"]),
    // .task bundles and .tflite flatbuffers turned into runtime graphs.
    .target(name: "VisageTFLite", dependencies: ["VisageRuntime"]),
    // The face stages (detector, landmarker, ...) and the image type they take: no codecs,
    // no flatbuffer parsing of their own.
    .target(name: "Visage", dependencies: ["VisageTFLite"]),
    // PNG and JPEG files to `MPImage` and back (libpng, libjpeg-turbo; ImageIO on Apple platforms),
    // and the files stb_image reads as MediaPipe's Python reads them.
    .target(
      name: "VisageImageIO",
      dependencies: [
        "Visage", "CSTBImage", .target(name: "CPNG", condition: .when(platforms: nonApple)),
        .target(name: "CJPEG", condition: .when(platforms: nonApple)),
      ]),
    // Google ML Kit's face detection API (`FaceDetector`, `VisionImage`, `Face`, and the
    // Firebase-era `Vision` names), in its own module as ML Kit is apart from MediaPipe, so its
    // `FaceDetector` and `Face` do not clash with Visage's. Its models are built in.
    .target(
      name: "VisageMLKit", dependencies: ["Visage", "VisageImageIO"],
      resources: [.copy("Models/face_landmarker.task"), .copy("Models/face_detection_full_range.tflite")]),

    // What the command line and visage-server (Server/) write: results and failures as JSON,
    // key order kept.
    .target(name: "VisageReports", dependencies: ["Visage", "VisageImageIO"]),
    // What a program hosting the face tasks needs: the one table of the tasks' options, the
    // work pool of task copies, the bundled models' folder, the process's environment and
    // memory settings.
    .target(name: "VisageHosting", dependencies: ["Visage", "VisageKernels", "CAllocator"]),

    // MARK: Executables

    // The command line's code, a library so that the Python wheel's shared object carries it
    // too (Python/Sources/VisageC); the executable is one call into it.
    .target(
      name: "VisageCommandLine",
      dependencies: [
        "Visage", "VisageImageIO", "VisageTFLite", "VisageRuntime", "VisageReports", "VisageHosting", "CAllocator",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .executableTarget(name: "visage", dependencies: ["VisageCommandLine"]),

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
    // ML Kit's guide and documented behaviour; again in Swift 5 mode from the same files
    // (Tests/VisageMLKitSwift5Tests links to them).
    .testTarget(name: "VisageMLKitTests", dependencies: ["VisageMLKit", "VisageTestSupport"]),
    .testTarget(
      name: "VisageMLKitSwift5Tests", dependencies: ["VisageMLKit", "VisageTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    // The MediaPipe guides' calls in their order, compiled twice: in Swift 6 language mode,
    // and in Swift 5 from the same files (Tests/GuideCodeSwift5Tests links to them).
    .testTarget(
      name: "GuideCodeTests", dependencies: ["Visage", "VisageImageIO", "VisageTFLite", "VisageTestSupport"]),
    .testTarget(
      name: "GuideCodeSwift5Tests", dependencies: ["Visage", "VisageImageIO", "VisageTFLite", "VisageTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    .testTarget(
      name: "VisageImageIOTests",
      dependencies: [
        "VisageImageIO", "Visage", "VisageTestSupport", .target(name: "CPNG", condition: .when(platforms: nonApple)),
      ]),
    .testTarget(name: "VisageReportsTests", dependencies: ["VisageReports", "Visage", "VisageTestSupport"]),
    .testTarget(name: "VisageHostingTests", dependencies: ["VisageHosting", "Visage", "VisageTestSupport"]),
    .testTarget(
      name: "VisageRuntimeTests",
      dependencies: ["VisageTFLite", "VisageRuntime", "VisageTestSupport"]),
    // Runs the built `visage` executable the way scripts do: arguments, stdin, stdout,
    // stderr and exit status. Depending on the executable target makes `swift test` build it.
    .testTarget(
      name: "VisageCLITests",
      dependencies: [
        "visage", "VisageImageIO", "Visage", "VisageRuntime", "VisageTFLite", "VisageReports", "VisageHosting",
        "VisageCommandLine", "VisageTestSupport",
      ]),
  ]
)

package.targets += instructionSetCopies.map { copy in
  .target(
    name: copy.name, dependencies: ["CVisageISA"], path: "Sources/\(copy.name)",
    swiftSettings: (copy.cpu.map { [.unsafeFlags(["-target-cpu", $0])] } ?? []) + [.define("VISAGE_FMA")])
}
