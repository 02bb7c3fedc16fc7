/// A request the server refuses, with the HTTP status it is answered with and a message in
/// the server's words. Every failure has one envelope (docs/server.md):
/// `{"error": {"code": <status>, "status": "<Google's status name>", "message": "…"}}`.
public struct RequestError: Error, Equatable, CustomStringConvertible {
  /// The HTTP status.
  public let code: Int
  /// What went wrong, for people.
  public let message: String

  public init(_ code: Int, _ message: String) {
    self.code = code
    self.message = message
  }

  /// A bad or unknown option, or a body that is not what its content type says.
  public static func badRequest(_ message: String) -> RequestError { RequestError(400, message) }
  /// Not an image format Visage decodes.
  public static func unsupportedFormat(_ message: String) -> RequestError { RequestError(415, message) }
  /// An image that does not decode, or one over the pixel limit.
  public static func undecodable(_ message: String) -> RequestError { RequestError(422, message) }

  public var description: String { "\(code) \(status): \(message)" }

  /// The name google.rpc.Code gives this status, as Google's APIs put in `error.status`.
  public var status: String { Self.statusName(code) }

  /// google.rpc.Code's name for an HTTP status (its HTTP mapping, read backwards).
  public static func statusName(_ code: Int) -> String {
    switch code {
    case 400, 414, 415, 422, 431: "INVALID_ARGUMENT"
    case 401: "UNAUTHENTICATED"
    case 403: "PERMISSION_DENIED"
    case 404: "NOT_FOUND"
    case 405, 501: "UNIMPLEMENTED"
    case 408, 504: "DEADLINE_EXCEEDED"
    case 409: "ABORTED"
    case 413, 429: "RESOURCE_EXHAUSTED"
    case 499: "CANCELLED"
    case 503: "UNAVAILABLE"
    default: code >= 500 ? "INTERNAL" : "UNKNOWN"
    }
  }
}
