import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import VisageHosting
import VisageReports
import VisageRequests

/// The HTTP routes (docs/server.md): the three image tasks, Cloud Vision's `images:annotate`,
/// the page, health, readiness and metrics.
struct Routes {
  let engine: Engine

  /// `/healthz`'s body: the process is up. A connection beyond `--max-connections` gets it too.
  static let healthy = JSONValue.object([("status", .string("ok"))])

  func add(to router: Router<VisageRequestContext>) {
    let metrics = engine.metrics
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    router.add(middleware: ErrorEnvelopeMiddleware())
    router.add(middleware: KnownMethodsMiddleware())
    router.get("/healthz") { _, _ in Response.json(Self.healthy) }
    router.get("/readyz") { _, _ in try await ready() }
    router.get("/metrics") { [engine] _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: metrics.text(inFlight: engine.inFlight, queued: engine.queued))))
    }
    for path in ["/healthz", "/readyz", "/metrics"] {
      refuseOtherMethods(router, path, allowed: .get, error: APIError.init)
    }
    engine.page.add(to: router)
    InferenceRoutes(engine: engine).add(to: router)
    for path in Set(engine.page.files.keys).union(["/"]) {
      refuseOtherMethods(router, path, allowed: .get, error: APIError.init)
    }

    var v1 = router.group("/v1")
    if !engine.configuration.apiKeys.isEmpty {
      v1 = v1.add(middleware: APIKeyMiddleware(keys: engine.configuration.apiKeys.map { Array($0.utf8) }))
    }
    for kind in FaceTaskKind.allCases {
      v1.post("/\(kind.rawValue)") { request, context in
        let task = try TaskRequest(kind: kind, uri: request.uri, ignored: ["key"])
        return try await answer(request, context) { bytes, caller in
          try await engine.respond(
            to: task, body: bytes, contentType: request.headers[.contentType], callerHasLeft: caller)
        }
      }
      refuseOtherMethods(v1, "/\(kind.rawValue)", allowed: .post, error: APIError.init)
    }
    // Cloud Vision's route. Its query (`$alt`, which Google's client sends, and `key`) names
    // nothing Visage uses, so it is not read.
    v1.post("/images:annotate") { request, context in
      try await answer(request, context) { bytes, caller in
        try await engine.annotate(body: bytes, callerHasLeft: caller)
      }
    }
    refuseOtherMethods(v1, "/images:annotate", allowed: .post, error: APIError.init)
    // The live stream's path, asked without a WebSocket upgrade (which the WebSocket router
    // takes before these routes see it).
    v1.get("/live") { _, _ -> Response in
      throw APIError(
        .upgradeRequired, "/v1/live is a WebSocket: ask with `Connection: Upgrade` and `Upgrade: websocket`",
        headers: [.upgrade: "websocket", .connection: "Upgrade"])
    }
  }

  /// One request with a body, answered as JSON: `admitting` it, then `work` on it (on the
  /// pool); the library's refusals are the image's fault (422).
  private func answer(
    _ request: Request, _ context: VisageRequestContext,
    _ work: ([UInt8], @escaping @Sendable () -> Bool) async throws -> JSONValue
  ) async throws -> Response {
    try await admitting(request, context) { bytes, hasLeft in
      do { return Response.json(try await work(bytes, hasLeft)) } catch let error as RequestError {
        throw APIError(error)
      } catch let error as APIError {
        throw error
      } catch let error where error is CallerLeft || error is WorkPoolError {
        throw error
      } catch {
        // The library refused this image (a search over its bounds, say): the image's fault.
        throw APIError(.unprocessableContent, "\(error)")
      }
    }
  }

  /// One request with a body: the body, then admission, then `work` on it. A request that
  /// could not be admitted now is refused before its body is read; one whose body is still
  /// arriving holds no copy or queue place, only the bytes it has sent. `work` is told how to
  /// know that the client has gone (`CallerPresence`), so that it is not done for nobody: such
  /// a request is counted with status 499, as nginx counts it. A full pool is a 503.
  func admitting<Answer>(
    _ request: Request, _ context: VisageRequestContext,
    _ work: ([UInt8], @escaping @Sendable () -> Bool) async throws -> Answer
  ) async throws -> Answer {
    let limit = engine.configuration.maxBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw APIError(.contentTooLarge, "the body has \(length) bytes, over the limit of \(limit) (--max-body-bytes)")
    }
    guard engine.hasRoom else { throw busy() }
    let (bytes, reserved) = try await collectBody(request, limit: limit)
    defer { engine.releaseBodyBytes(reserved) }
    let presence = await context.callerPresence()
    let hasLeft: @Sendable () -> Bool = { presence?.hasLeft ?? false }
    if hasLeft() {
      engine.metrics.abandoned(.waiting)
      throw CallerLeft.error
    }
    guard engine.admit() else { throw busy() }
    defer { engine.release() }
    do { return try await work(bytes, hasLeft) } catch is CallerLeft {
      throw CallerLeft.error
    } catch let error as WorkPoolError {
      throw error == .full ? busy() : APIError(.serviceUnavailable, "the server is shutting down")
    }
  }

  /// The body in full, within the limit and the body timeout (408, and the connection
  /// closed), and the bytes of the body budget it holds (released by the caller). The read
  /// and the deadline race in a task group: whichever ends first decides, the other is
  /// cancelled, and a body read in full after the deadline gives its budget back.
  func collectBody(_ request: Request, limit: Int) async throws -> ([UInt8], Int) {
    let seconds = engine.configuration.bodyTimeoutSeconds
    let body = request.body
    let engine = self.engine
    return try await withThrowingTaskGroup(of: ([UInt8], Int).self) { group in
      group.addTask { try await Self.read(body, limit: limit, engine: engine) }
      group.addTask {
        try await Task.sleep(for: .seconds(seconds))
        throw APIError(
          .requestTimeout, "the body did not arrive within \(seconds) s (--body-timeout)",
          headers: [.connection: "close"])
      }
      let first = await group.nextResult()
      group.cancelAll()
      // The loser: the sleep's cancellation, or a body that arrived too late, whose budget
      // goes back.
      while let late = await group.nextResult() {
        if case .success(let (_, reserved)) = late { engine.releaseBodyBytes(reserved) }
      }
      guard let first else { throw CancellationError() }
      return try first.get()
    }
  }

  /// Reads `body` within `limit`, reserving its bytes from the server's body budget as they
  /// come; on any failure gives back what it reserved and throws the answer.
  private static func read(_ body: RequestBody, limit: Int, engine: Engine) async throws -> ([UInt8], Int) {
    var reserved = 0
    do {
      var buffer = ByteBuffer()
      for try await chunk in body {
        guard buffer.readableBytes + chunk.readableBytes <= limit else { throw BodyOverLimit() }
        guard engine.reserveBodyBytes(chunk.readableBytes) else {
          throw APIError(
            .serviceUnavailable, "the server holds as many request bodies as it takes: try again shortly",
            headers: [.retryAfter: "1", .connection: "close"])
        }
        reserved += chunk.readableBytes
        buffer.writeImmutableBuffer(chunk)
      }
      // Cancelled (the deadline passed): what was read is not the body.
      try Task.checkCancellation()
      return (buffer.readBytes(length: buffer.readableBytes) ?? [], reserved)
    } catch {
      engine.releaseBodyBytes(reserved)
      switch error {
      case is BodyOverLimit:
        throw APIError(.contentTooLarge, "the body is over the limit of \(limit) bytes (--max-body-bytes)")
      case let error as APIError: throw error
      case is CancellationError: throw error
      default:
        // The client closed the connection mid-body, or sent a broken chunked body.
        throw APIError(.badRequest, "the body could not be read in full: \(error)")
      }
    }
  }

  func busy() -> APIError {
    APIError(
      .serviceUnavailable,
      engine.isDraining
        ? "the server is shutting down" : "every task copy is busy and the queue is full: try again shortly",
      // Closed, so that the refused request's body (megabytes for a photo) is not read.
      headers: [.retryAfter: "1", .connection: "close"])
  }

  /// 200 once the models are loaded, after a real detection on the bundled photo; 503 while
  /// draining or when the queue is full.
  private func ready() async throws -> Response {
    guard !engine.isDraining else { throw APIError(.serviceUnavailable, "the server is shutting down") }
    // Admitted as any request, so that probes never take an admitted request's place.
    guard engine.admit() else { throw busy() }
    defer { engine.release() }
    do { try await engine.checkReadiness() } catch is WorkPoolError { throw busy() }
    return Response.json(.object([("status", .string("ready"))]))
  }
}

/// A body longer than `--max-body-bytes` (413).
private struct BodyOverLimit: Error {}

extension TaskRequest {
  /// The options in a request's query (values percent-decoded by Hummingbird, names by
  /// `init(kind:query:)`), for every route alike.
  init(kind: FaceTaskKind, uri: URI, live: Bool = false, ignored: Set<String>) throws(RequestError) {
    try self.init(
      kind: kind, query: uri.queryParameters.map { (String($0.key), String($0.value)) }, live: live, ignored: ignored)
  }
}

/// Answers 405, with `Allow`, the methods `path` does not take, in the error `error` makes
/// (each API's own envelope). Hummingbird 2.28.1's router answers a known path asked with
/// another method as it does an unknown path (`RouterResponder` falls to its not-found
/// responder: 404), where RFC 9110 asks for 405 naming the allowed method; no upstream issue
/// asks for it (docs/decisions.md). HEAD on a GET path is answered as GET is, by the router's
/// `autoGenerateHeadEndpoints`; on a POST path it is refused too.
func refuseOtherMethods<Context: RequestContext>(
  _ router: some RouterMethods<Context>, _ path: String, allowed: HTTPRequest.Method,
  error: @escaping @Sendable (HTTPResponse.Status, String, HTTPFields) -> some Error
) {
  for method: HTTPRequest.Method in [.get, .post, .put, .delete, .patch, .head, .options, .trace]
  where method != allowed && !(allowed == .get && method == .head) {
    router.on(RouterPath(path), method: method) { request, _ -> Response in
      throw error(
        .methodNotAllowed, "\(request.uri.path) takes \(allowed.rawValue), not \(method.rawValue)",
        [.allow: allowed.rawValue])
    }
  }
}
