import Foundation
import HTTPTypes
import Hummingbird
import VisageRequests

/// Turns every error a route or the router throws into the one envelope (`APIError`): the
/// router's empty 404 and 413 included. Anything unexpected is a 500, which is a bug: it is
/// logged with its error.
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do { return try await next(request, context) } catch {
      let answer = Self.envelope(error, request, context)
      // HEAD, which the router answers as GET (`autoGenerateHeadEndpoints`), gets the status
      // and headers alone, as it would on success.
      if request.method == .head { return Response(status: answer.status, headers: answer.headers) }
      throw answer
    }
  }

  private static func envelope(_ error: any Error, _ request: Request, _ context: Context) -> APIError {
    switch error {
    case let error as APIError: return error
    case let error as RequestError: return APIError(error)
    case let error as HTTPError:
      return APIError(
        error.status,
        error.status == .notFound ? "no route \(request.uri.path)" : error.body ?? error.status.reasonPhrase)
    case let error as any HTTPResponseError:
      return APIError(
        error.status, error.status == .contentTooLarge ? "the body is over the limit" : error.status.reasonPhrase)
    default:
      context.logger.error("internal error on \(request.method) \(request.uri.path): \(error)")
      return APIError(.internalServerError, "internal error: \(error)")
    }
  }
}

/// Counts every answered request by its route and status, with its latency.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    let start = ContinuousClock.now
    var status = 500
    defer {
      let route = context.endpointPath ?? "unmatched"
      metrics.request(route: route, status: status, duration: ContinuousClock.now - start)
      if status == 503 { metrics.rejected() }
    }
    do {
      let response = try await next(request, context)
      status = response.status.code
      return response
    } catch let error as any HTTPResponseError {
      status = error.status.code
      throw error
    }
  }
}

/// Requires one of the configured API keys in `x-api-key` (or `x-goog-api-key`),
/// `Authorization: Bearer` or the
/// `key` query parameter (Google's APIs take it there, and a browser's WebSocket can send
/// nothing else), compared in constant time; 401 otherwise.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
  let keys: [[UInt8]]

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard let given = Self.key(of: request), Self.matches(Array(given.utf8), keys) else {
      throw APIError(
        .unauthorized, "an API key is needed: send it in x-api-key, Authorization: Bearer or ?key=",
        headers: [.wwwAuthenticate: "Bearer"])
    }
    return try await next(request, context)
  }

  /// The key a request carries: `x-api-key` (or `x-goog-api-key`, where Google's clients put
  /// it), else `Authorization: Bearer`, else `?key=`.
  static func key(of request: Request) -> String? {
    if let key = request.headers[.xAPIKey] ?? request.headers[.xGoogAPIKey] { return key }
    if let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") {
      return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
    return request.uri.queryParameters["key"].map(String.init)
  }

  /// Whether `given` equals one of `keys`, taking the same time whichever byte differs: every
  /// key is compared in full, over the longer of the two lengths.
  static func matches(_ given: [UInt8], _ keys: [[UInt8]]) -> Bool {
    var found: UInt8 = 0
    for key in keys {
      var difference = UInt8(given.count == key.count ? 0 : 1)
      for i in 0..<max(given.count, key.count) {
        difference |= (i < given.count ? given[i] : 0) ^ (i < key.count ? key[i] : 0)
      }
      found |= difference == 0 ? 1 : 0
    }
    return found == 1
  }
}

extension HTTPField.Name {
  static let xAPIKey = Self("x-api-key")!
  static let xGoogAPIKey = Self("x-goog-api-key")!
}

/// A method HTTP does not define for these resources (`PURGE`, say) is answered 501, where the
/// router alone would say "no route".
struct KnownMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
  static var known: Set<HTTPRequest.Method> { [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect] }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard Self.known.contains(request.method) else {
      throw APIError(.notImplemented, "the server does not implement the method \(request.method.rawValue)")
    }
    return try await next(request, context)
  }
}
