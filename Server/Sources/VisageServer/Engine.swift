import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Visage
import VisageHosting
import VisageImageIO
import VisageReports
import VisageRequests

/// The server's work: `threads` one-thread task copies behind a bounded queue (VisageHosting's
/// `WorkPool`, which `visage --threads N` runs its batches on), the admission that bounds
/// memory, readiness, and the live streams' count.
public final class Engine: Sendable {
  public let configuration: ServerConfiguration
  public let models: ServerModels
  let metrics: ServerMetrics
  /// The models `/v2/models/{name}` serves (the Open Inference Protocol), read at start.
  let inference: InferenceModels
  /// The page at `/`, read at start.
  let page: PageFiles
  let pool: WorkPool<TaskCache>
  /// The bundled sample photo, which `/readyz` runs a detection on.
  private let sample: [UInt8]
  /// Requests admitted and not yet answered, live streams open, whether the server is
  /// draining, and bytes of request bodies received and not yet let go.
  private struct State {
    var admitted = 0
    var liveStreams = 0
    var draining = false
    var bodyBytes = 0
  }
  private let state = NIOLockedValueBox(State())

  /// Loads every copy's default tasks and runs each once on the sample photo, so that the
  /// first request is as fast as the hundredth; the port opens after this.
  public init(configuration: ServerConfiguration, models: ServerModels, metrics: ServerMetrics = ServerMetrics()) throws
  {
    self.configuration = configuration
    var models = models
    models.maximumSearchRuns = configuration.maxSearchRuns
    self.models = models
    self.metrics = metrics
    page = try PageFiles.load(directory: configuration.pageDirectory)
    inference = try InferenceModels(InferenceModels.bundled(models) + configuration.inferenceModels)
    metrics.registerInference(inference.names)
    let sample = try [UInt8](Data(contentsOf: URL(fileURLWithPath: models.sampleImage)))
    self.sample = sample
    let caches = try (0..<max(1, configuration.threads)).map { _ in
      let cache = TaskCache(models: models, capacity: configuration.tasksPerCopy)
      for kind in FaceTaskKind.allCases {
        _ = try cache.respond(
          to: TaskRequest(kind: kind, query: []), body: ImageBody(bytes: sample), limits: configuration.imageLimits)
      }
      return cache
    }
    pool = WorkPool(workers: caches, queueDepth: configuration.queueDepth, name: "visage-server.copy")
  }

  /// Where the page at `/` was read from; nil when it was not found.
  public var pageDirectory: String? { page.directory }

  /// The most requests between admission and answer: the copies' and the queue's.
  var capacity: Int { pool.workerCount + pool.queueDepth }

  /// Bytes of request bodies the server holds at most, received or waiting for a copy:
  /// `capacity` + 2 full bodies. A body is admitted to a copy only once it has arrived, so a
  /// client sending slowly holds none of `capacity`, and only the bytes it has sent of this.
  var bodyBudget: Int { (capacity + 2) * configuration.maxBodyBytes }

  /// Takes `count` bytes of the body budget, unless that would go over it.
  func reserveBodyBytes(_ count: Int) -> Bool {
    let budget = bodyBudget
    return state.withLockedValue {
      guard $0.bodyBytes + count <= budget else { return false }
      $0.bodyBytes += count
      return true
    }
  }

  func releaseBodyBytes(_ count: Int) { state.withLockedValue { $0.bodyBytes -= count } }

  /// Bytes of bodies held now.
  var bodyBytesHeld: Int { state.withLockedValue { $0.bodyBytes } }

  /// Whether a request would be admitted now: checked before a body is read, so that a
  /// request that would be refused is answered 503 without its body being sent.
  var hasRoom: Bool {
    let capacity = self.capacity
    return state.withLockedValue { !$0.draining && $0.admitted < capacity }
  }

  /// Admits a request unless `capacity` are in already or the server is draining. Requests
  /// are admitted once their body has arrived, so a slow upload never holds a copy or a queue
  /// place.
  func admit() -> Bool {
    let capacity = self.capacity
    return state.withLockedValue {
      guard !$0.draining, $0.admitted < capacity else { return false }
      $0.admitted += 1
      return true
    }
  }

  func release() { state.withLockedValue { $0.admitted -= 1 } }

  /// Requests admitted and not answered yet.
  var inFlight: Int { state.withLockedValue { $0.admitted } }
  /// Requests waiting for a copy.
  var queued: Int { pool.waiting }

  /// Opens a live stream unless `maxLiveStreams` are open or the server is draining.
  func openLiveStream() -> Bool {
    let most = configuration.maxLiveStreams
    return state.withLockedValue {
      guard !$0.draining, $0.liveStreams < most else { return false }
      $0.liveStreams += 1
      return true
    }
  }

  func closeLiveStream() { state.withLockedValue { $0.liveStreams -= 1 } }

  /// Live streams open now.
  var liveStreamsOpen: Int { state.withLockedValue { $0.liveStreams } }

  /// Whether `/readyz` may say yes.
  var isDraining: Bool { state.withLockedValue { $0.draining } }

  /// Stops admitting requests (SIGTERM, SIGINT); those admitted are still answered.
  public func drain() { state.withLockedValue { $0.draining = true } }

  /// Reads the body's image (its form, base64, multipart), decodes and answers it on the next
  /// free copy: all of it on the copy's thread, none on Swift concurrency's few. For an
  /// admitted request (`admit()`), which admission has already bounded. Throws `RequestError`
  /// for the client's mistakes, and `CallerLeft` when `callerHasLeft` says so as the copy takes
  /// the request or once its image is decoded (a model run already started finishes).
  func respond(
    to request: TaskRequest, body: [UInt8], contentType: String?,
    callerHasLeft: @escaping @Sendable () -> Bool = {
      false
    }
  ) async throws -> JSONValue {
    let limits = configuration.imageLimits
    let metrics = self.metrics
    return try await pool.run(beyondDepth: true) { cache in
      try metrics.dropIfLeft(callerHasLeft, at: .waiting)
      let start = ContinuousClock.now
      let image = try ImageBody(body: body, contentType: contentType)
      let answer = try cache.respond(to: request, body: image, limits: limits) {
        try metrics.dropIfLeft(callerHasLeft, at: .decoded)
      }
      metrics.modelTime(request.kind, ContinuousClock.now - start)
      return answer
    }
  }

  /// Cloud Vision's `images:annotate` for an admitted request: each image on the next free
  /// copy, side by side, the responses in the requests' order. Throws `RequestError` when the
  /// request as a whole is not one (each image's own fault is its response's `error`).
  func annotate(body: [UInt8], callerHasLeft: @escaping @Sendable () -> Bool) async throws -> JSONValue {
    let items = try CloudVision.items(fromBody: body)
    let limits = configuration.imageLimits
    let metrics = self.metrics
    let responses = try await withThrowingTaskGroup(of: (Int, CloudVision.ImageResponse).self) { group in
      for (i, item) in items.enumerated() {
        switch item {
        case .refused(let status): group.addTask { (i, status.response) }
        case .image(let bytes, let maxResults):
          group.addTask { [pool] in
            let response = try await pool.run(beyondDepth: true) { cache in
              try metrics.dropIfLeft(callerHasLeft, at: .waiting)
              let start = ContinuousClock.now
              let response = try cache.annotate(bytes, maxResults: maxResults, limits: limits) {
                try metrics.dropIfLeft(callerHasLeft, at: .decoded)
              }
              metrics.modelTime(.analyze, ContinuousClock.now - start)
              return response
            }
            return (i, response)
          }
        }
      }
      var responses = [CloudVision.ImageResponse?](repeating: nil, count: items.count)
      for try await (i, response) in group { responses[i] = response }
      return responses.compactMap { $0 }
    }
    return CloudVision.BatchResponse(responses: responses).json
  }

  /// A detection on the bundled photo, through the pool as any admitted request: `/readyz`.
  func checkReadiness() async throws {
    _ = try await respond(to: TaskRequest(kind: .detect, query: []), body: sample, contentType: nil)
  }

  /// Ends the copies' threads once the queued requests are answered.
  public func shutdown() { pool.shutdown() }
}

/// A request dropped because its client closed the connection (`CallerPresence`): answered
/// with status 499, which no one reads, so that `/metrics` counts it apart.
struct CallerLeft: Error {
  static var error: APIError {
    APIError(
      HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"),
      "the client closed the connection before its answer")
  }
}

extension ServerMetrics {
  /// Throws `CallerLeft`, and counts the request as dropped `at` this stage, when its client
  /// has gone.
  func dropIfLeft(_ callerHasLeft: () -> Bool, at stage: AbandonedAt) throws {
    guard callerHasLeft() else { return }
    abandoned(stage)
    throw CallerLeft()
  }
}
