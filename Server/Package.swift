// swift-tools-version:6.2
// visage-server: the Visage engine over HTTP and WebSocket (docs/server.md). A package of its
// own, as Fuzz/ is, so that an app depending on Visage never resolves NIO or Hummingbird.
// Start it from the repository root:
//   swift run -c release --package-path Server visage-server
import PackageDescription

let package = Package(
  name: "VisageServer",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "visage-server", targets: ["visage-server"]),
    .library(name: "VisageServer", targets: ["VisageServer"]),
    .library(name: "VisageRequests", targets: ["VisageRequests"]),
  ],
  dependencies: [
    .package(name: "Visage", path: ".."),
    // Without Hummingbird's ConfigurationSupport trait, which hummingbird-websocket leaves off:
    // asked for on one line and not the other, SwiftPM 6.2.3 (Debian's, which builds the arm64
    // server) fails about half its builds on "product 'Configuration' ... not found"
    // (hummingbird-project/hummingbird#769). The server uses neither it nor TLS.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // What a request asks for, read from its bytes: the body's forms (an image, multipart,
    // JSON with base64), the image format, the query's options. No networking, so the fuzz
    // harness (Fuzz/) can take it without NIO.
    .target(
      name: "VisageRequests",
      dependencies: [
        .product(name: "Visage", package: "Visage"), .product(name: "VisageImageIO", package: "Visage"),
        .product(name: "VisageReports", package: "Visage"), .product(name: "VisageHosting", package: "Visage"),
      ]),
    // The routes, limits, metrics and live stream on Hummingbird.
    .target(
      name: "VisageServer",
      dependencies: [
        "VisageRequests",
        .product(name: "Visage", package: "Visage"), .product(name: "VisageImageIO", package: "Visage"),
        .product(name: "VisageReports", package: "Visage"), .product(name: "VisageHosting", package: "Visage"),
        // The Open Inference Protocol's models run on the runtime itself (/v2/models).
        .product(name: "VisageRuntime", package: "Visage"), .product(name: "VisageTFLite", package: "Visage"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      // The page at `/`: plain HTML, CSS and JS, no build step (docs/server.md, "The page").
      resources: [.copy("Page")]),
    .executableTarget(
      name: "visage-server",
      dependencies: [
        "VisageServer", .product(name: "VisageHosting", package: "Visage"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .testTarget(
      name: "VisageServerTests",
      dependencies: [
        "VisageServer", "VisageRequests",
        .product(name: "VisageRuntime", package: "Visage"), .product(name: "VisageTFLite", package: "Visage"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
      ]),
  ]
)

// Tools/release/build (VISAGE_RELEASE_BUILD=1) builds the Python package's shared object,
// VisageC, through this graph and in the same scratch folder as visage-server, so that the
// engine is compiled once for both wheels. Only then: no target here uses it.
if Context.environment["VISAGE_RELEASE_BUILD"] == "1" {
  package.dependencies.append(.package(name: "VisagePython", path: "../Python"))
}
