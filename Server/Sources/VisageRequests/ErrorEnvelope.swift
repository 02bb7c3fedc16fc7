import VisageReports

/// Every failure's body, built here and nowhere else: `{"error": {"code", "status",
/// "message"}}`, as Google's APIs write theirs (docs/server.md). A live stream's frame adds its
/// `source` and `timestampMs` before the error; a Cloud Vision image's own error is a
/// `google.rpc.Status` (`code` is google.rpc.Code's number, no `status`).
public struct ErrorEnvelope: Encodable, Equatable, Sendable {
  /// The error itself.
  public struct Detail: Encodable, Equatable, Sendable {
    /// The HTTP status, or for a Cloud Vision image google.rpc.Code's number.
    public let code: Int
    /// google.rpc.Code's name for an HTTP status.
    public let status: String?
    /// What went wrong, for people.
    public let message: String
  }

  /// The live frame's file name, when the error answers one.
  public var source: String?
  /// The live frame's timestamp, when the error answers one.
  public var timestampMs: Int?
  /// The error.
  public let error: Detail

  /// An HTTP failure: its status, google.rpc.Code's name for it, and the message.
  public init(code: Int, message: String, source: String? = nil, timestampMs: Int? = nil) {
    self.source = source
    self.timestampMs = timestampMs
    error = Detail(code: code, status: RequestError.statusName(code), message: message)
  }

  /// A refused request's envelope.
  public init(_ error: RequestError) { self.init(code: error.code, message: error.message) }

  /// A `google.rpc.Status` as Cloud Vision writes one image's error.
  init(rpcCode: Int, message: String) {
    error = Detail(code: rpcCode, status: nil, message: message)
  }

  /// The envelope as a JSON tree.
  public var json: JSONValue {
    // Nothing here can fail to encode: strings and whole numbers only.
    (try? OrderedJSONEncoder().encode(self)) ?? .null
  }

  /// The envelope as JSON text.
  public var text: String { json.description }
}
