import ArgumentParser
import Foundation
import Logging
import VisageHosting
import VisageRequests
import VisageServer

/// `visage-server`: the Visage engine over HTTP and WebSocket (docs/server.md).
@main
struct VisageServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "visage-server",
    abstract: "Face detection, landmarks and analysis over HTTP and WebSocket.",
    discussion: """
      Loads the bundled models, warms every task copy, then listens. Routes: POST /v1/detect, \
      /v1/landmark, /v1/analyze; GET /v1/live (WebSocket); /healthz, /readyz, /metrics. \
      SIGTERM or SIGINT: stop accepting, answer what is in flight, exit 0. See docs/server.md.
      """)

  @Option(help: "The address to listen on.")
  var host = ServerConfiguration().host

  @Option(help: "The port to listen on.")
  var port = ServerConfiguration().port

  @Option(help: "One-thread task copies answering requests side by side (default: the number of cores).")
  var threads: Int?

  @Option(help: "Requests that may wait for a task copy; one more is answered 503.")
  var queueDepth = ServerConfiguration().queueDepth

  @Option(help: "The largest request body, in bytes (20 MiB: Cloud Vision's image limit).")
  var maxBodyBytes = ServerConfiguration().maxBodyBytes

  @Option(help: "The largest image in pixels, refused (422) before decoding.")
  var maxPixels = ServerConfiguration().maxPixels

  @Option(help: "The largest live-stream frame in pixels (a 4K camera's); a larger frame is answered 422.")
  var maxLivePixels = ServerConfiguration().maxLivePixels

  @Option(
    help:
      "The most model runs one search at every scale or turn may plan (about 1 ms each); a larger image is refused (422) before any run."
  )
  var maxSearchRuns = ServerConfiguration().maxSearchRuns

  @Option(help: "A file of API keys, one per line: requests must carry one (x-api-key or Authorization: Bearer).")
  var apiKeyFile: String?

  @Option(
    help:
      "Open connections served at most; \(ServerConfiguration.connectionReserve) more get /healthz 200 and all else 503; more wait."
  )
  var maxConnections = ServerConfiguration().maxConnections

  @Option(help: "Live streams (WebSocket connections) open at once.")
  var maxLiveStreams = ServerConfiguration().maxLiveStreams

  @Option(help: "Seconds a connection may stay silent (between requests, or while its headers arrive).")
  var idleTimeout = ServerConfiguration().idleTimeoutSeconds

  @Option(help: "Seconds a request body may take to arrive in full (a body that stops is cut off by --idle-timeout).")
  var bodyTimeout = ServerConfiguration().bodyTimeoutSeconds

  @Option(help: "Seconds SIGTERM waits for requests in flight.")
  var drainTimeout = ServerConfiguration().drainSeconds

  @Option(help: "Serve the page at / from this folder (read at start) instead of the built-in copy.")
  var pageDir: String?

  @Option(
    name: .customLong("model"),
    help:
      "Also serve a model over the Open Inference Protocol (/v2/models/NAME), as NAME=PATH: a .tflite file or bundle.task:entry.tflite. Repeatable."
  )
  var models: [String] = []

  /// `--model`'s names and paths, in the order given.
  private var inferenceModels: [(name: String, path: String)] {
    models.map { spec in
      let eq = spec.firstIndex(of: "=") ?? spec.endIndex
      return (String(spec[..<eq]), eq == spec.endIndex ? "" : String(spec[spec.index(after: eq)...]))
    }
  }

  func validate() throws {
    func atLeast(_ value: Int, _ minimum: Int, _ flag: String) throws {
      guard value >= minimum else { throw ValidationError("--\(flag) must be at least \(minimum), got \(value)") }
    }
    try atLeast(port, 0, "port")
    guard port <= 65535 else { throw ValidationError("--port must be at most 65535, got \(port)") }
    if let threads {
      try atLeast(threads, 1, "threads")
      guard threads <= 64 else { throw ValidationError("--threads must be at most 64, got \(threads)") }
    }
    try atLeast(queueDepth, 0, "queue-depth")
    try atLeast(maxBodyBytes, 1, "max-body-bytes")
    try atLeast(maxPixels, 1, "max-pixels")
    try atLeast(maxLivePixels, 1, "max-live-pixels")
    try atLeast(maxSearchRuns, 6, "max-search-runs")
    try atLeast(maxConnections, 1, "max-connections")
    try atLeast(maxLiveStreams, 0, "max-live-streams")
    try atLeast(idleTimeout, 1, "idle-timeout")
    try atLeast(bodyTimeout, 1, "body-timeout")
    try atLeast(drainTimeout, 0, "drain-timeout")
    var names = Set(InferenceModels.bundledNames)
    for (name, path) in inferenceModels {
      guard InferenceModels.isValidName(name), !path.isEmpty else {
        throw ValidationError(
          "--model takes NAME=PATH, NAME of letters, digits, '_', '-' and '.'; got '\(name)\(path.isEmpty ? "" : "=" + path)'"
        )
      }
      guard names.insert(name).inserted else {
        throw ValidationError("--model \(name): a model of that name is served already")
      }
    }
  }

  func run() async throws {
    // A bad tuning variable is refused here (status 64) rather than stopping a kernel later.
    if let problem = EnvironmentCheck.problems().first { throw ValidationError(problem) }
    // Photos' pixel buffers are reused from one request to the next (12 MP photos: 1.6x the
    // images per second).
    ProcessMemory.retainFreedMemory()
    var configuration = ServerConfiguration()
    configuration.host = host
    configuration.port = port
    configuration.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
    configuration.queueDepth = queueDepth
    configuration.maxBodyBytes = maxBodyBytes
    configuration.maxPixels = maxPixels
    configuration.maxSearchRuns = maxSearchRuns
    configuration.maxLivePixels = maxLivePixels
    configuration.maxConnections = maxConnections
    configuration.maxLiveStreams = maxLiveStreams
    configuration.idleTimeoutSeconds = idleTimeout
    configuration.bodyTimeoutSeconds = bodyTimeout
    configuration.drainSeconds = drainTimeout
    configuration.inferenceModels = inferenceModels
    if let pageDir {
      guard FileManager.default.fileExists(atPath: pageDir + "/index.html") else {
        throw ValidationError("--page-dir \(pageDir) holds no index.html")
      }
      configuration.pageDirectory = pageDir
    }
    if let apiKeyFile {
      guard let text = try? String(contentsOfFile: apiKeyFile, encoding: .utf8) else {
        throw ValidationError("cannot read --api-key-file \(apiKeyFile)")
      }
      configuration.apiKeys = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
      guard !configuration.apiKeys.isEmpty else { throw ValidationError("--api-key-file \(apiKeyFile) holds no key") }
    }
    var logger = Logger(label: "visage-server")
    logger.logLevel = .notice
    let models = try ServerModels.bundled()
    let start = ContinuousClock.now
    let engine = try Engine(configuration: configuration, models: models)
    logger.notice(
      "\(configuration.threads) task copies loaded and warmed in \(ContinuousClock.now - start); queue depth \(configuration.queueDepth)"
    )
    // What the operator sizes the machine or container by (docs/server.md, "Memory").
    let atRest = ProcessMemory.residentBytes() ?? 0
    logger.notice(
      "memory: \(atRest >> 20) MB at rest; requests may add up to \(configuration.memoryForRequests >> 20) MB (--threads, --max-pixels, --max-live-streams, --max-live-pixels, --max-body-bytes)"
    )
    if engine.pageDirectory == nil {
      logger.warning("the page's files were not found: / answers 404 (docs/server.md, \"The page\")")
    }
    try await runServer(engine: engine, logger: logger)
  }
}
