import HTTPTypes
import Hummingbird
import NIOCore
import VisageReports
import VisageRequests

/// The Open Inference Protocol's error response: `{"error": "<message>"}` with its status,
/// and headers where the status needs them (Retry-After, Allow).
///
/// Apart from the server's own envelope (`APIError`), because the protocol's clients read
/// this one. It is not an `HTTPResponseError`: `ErrorEnvelopeMiddleware` would turn that into
/// the server's envelope. `InferenceErrorMiddleware` answers it instead, on the `/v2` routes.
struct InferenceError: Error, Equatable {
  let status: HTTPResponse.Status
  let message: String
  var headers: HTTPFields = [:]

  init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
    self.status = status
    self.message = message
    self.headers = headers
  }

  /// The request is not one the model can run (400).
  static func badRequest(_ message: String) -> InferenceError { InferenceError(.badRequest, message) }

  /// The same failure the server's other routes give (a busy queue, a body over the limit, a
  /// missing API key), in this envelope.
  init(_ error: APIError) { self.init(error.status, error.message, headers: error.headers) }

  /// The response: the JSON body, with the status and headers.
  var response: Response {
    var headers = self.headers
    headers[.contentType] = "application/json; charset=utf-8"
    let body = InferenceMessage.text(InferenceMessage.Failure(error: message))
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
  }
}

/// Answers the `/v2` routes' failures in the protocol's envelope: `InferenceError`s, and the
/// `APIError`s and `RequestError`s of the machinery they share with the other routes (body
/// limits, admission, API keys). Anything else is left to `ErrorEnvelopeMiddleware`, which
/// logs it as the bug it is.
struct InferenceErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do { return try await next(request, context) } catch let error as InferenceError {
      return error.response
    } catch let error as APIError {
      return InferenceError(error).response
    } catch let error as RequestError {
      return InferenceError(APIError(error)).response
    }
  }
}
