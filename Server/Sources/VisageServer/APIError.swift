import Foundation
import HTTPTypes
import Hummingbird
import VisageReports
import VisageRequests

/// Every failure's response: its `ErrorEnvelope`, with extra headers where the status needs
/// them (Retry-After).
struct APIError: HTTPResponseError {
  let status: HTTPResponse.Status
  let message: String
  var headers: HTTPFields = [:]

  init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
    self.status = status
    self.message = message
    self.headers = headers
  }

  init(_ error: RequestError) {
    self.init(HTTPResponse.Status(code: error.code), error.message)
  }

  func response(from request: Request, context: some RequestContext) throws -> Response {
    var headers = self.headers
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(
      status: status, headers: headers,
      body: .init(byteBuffer: ByteBuffer(string: ErrorEnvelope(code: status.code, message: message).text)))
  }
}

extension Response {
  /// A 200 with a JSON body.
  static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(string: value.description)))
  }
}
