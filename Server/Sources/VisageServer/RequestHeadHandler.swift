import Foundation
import NIOCore
import NIOHTTP1
import VisageRequests

/// What happens between NIO's request decoder and Hummingbird, for what the routes never see.
///
/// - A connection beyond `--max-connections` (`ConnectionLimit`'s reserve) is answered here
///   and closed: `GET` or `HEAD /healthz` 200 as the route answers it, anything else 503 with
///   `Retry-After`.
/// - A request NIO cannot parse is answered, then closed: 414 for a head over the decoder's 80
///   KB limit whose request line is over 40 KB, 431 for other heads over it (or too many
///   fields), 400 for the rest (a bad
///   chunk size, `Content-Length` with `Transfer-Encoding`, two lengths, a NUL in the target).
///   With WebSocket upgrades on, Hummingbird turns off NIO's protocol error handler
///   (hummingbird-websocket PR #102, hummingbird PR #702), its own 400 runs only once a
///   request stream exists, and NIO's upgrade handler neither answers nor closes: such a
///   request went unanswered. Its `additionalChannelHandlers` are added only after the first
///   head, so this handler is put after NIO's decoder, found by its (public) type.
/// - `Expect: 100-continue` is answered `100 Continue` at once when the body will be read
///   (`continues`), so that curl, which asks so for bodies over 1 MiB, sends its body without
///   waiting a second. When it will not be read (over `--max-body-bytes`, or no room), nothing
///   is sent here and the route's 413 or 503 is the answer.
final class RequestHeadHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let handling: ConnectionHandling
  private let continues: @Sendable (HTTPRequestHead) -> Bool
  private var answered = false
  private var upgrading = false

  init(handling: ConnectionHandling, continues: @escaping @Sendable (HTTPRequestHead) -> Bool) {
    self.handling = handling
    self.continues = continues
  }

  /// Header fields a request may have; NIO's decoder bounds only their total size.
  static let maximumHeaderFields = 256

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !answered else { return }
    // After a WebSocket upgrade the decoder is gone and raw frames come this way: from an
    // upgrade request on, everything is passed on as it comes.
    guard !upgrading else { return context.fireChannelRead(data) }
    if case .head(let head) = unwrapInboundIn(data) {
      if handling.beyondLimit { return answerBeyondLimit(context, head) }
      if head.headers.contains(name: "upgrade") { upgrading = true }
      if head.headers.count > Self.maximumHeaderFields {
        return refuse(
          context, .requestHeaderFieldsTooLarge,
          "the request has \(head.headers.count) header fields, over the server's limit of \(Self.maximumHeaderFields)")
      }
      if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }), continues(head) {
        let interim = HTTPResponseHead(version: head.version, status: .continue)
        context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
      }
    }
    context.fireChannelRead(data)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard let error = error as? HTTPParserError, !answered, !upgrading else { return context.fireErrorCaught(error) }
    // Passed on as well, so that a body cut short (EOF mid-body) ends Hummingbird's body
    // stream with an error rather than looking complete.
    defer { context.fireErrorCaught(error) }
    switch error {
    case .headerOverflow where handling.requestLineTooLong:
      refuse(context, .uriTooLong, "the request line is over 40 KB (the head's limit is 80 KB)")
    case .headerOverflow:
      refuse(context, .requestHeaderFieldsTooLarge, "the request's headers are over the server's limit of 80 KB")
    default:
      refuse(context, .badRequest, "the request is not valid HTTP/1.1 (\(error))")
    }
  }

  /// A connection beyond `--max-connections` (`ConnectionLimit`): a liveness probe is answered
  /// as `/healthz` is, anything else 503, and the connection closed either way.
  private func answerBeyondLimit(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
    let probe = head.uri.prefix { $0 != "?" } == "/healthz" && (head.method == .GET || head.method == .HEAD)
    guard probe else {
      return refuse(
        context, .serviceUnavailable,
        "the server is at its connection limit (--max-connections): try again shortly",
        headers: [("Retry-After", "1")])
    }
    answer(context, .ok, Routes.healthy.description, withBody: head.method != .HEAD)
  }

  /// Answers with `status` and the error envelope, then closes the connection.
  private func refuse(
    _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ message: String,
    headers: [(String, String)] = []
  ) {
    answer(context, status, ErrorEnvelope(code: Int(status.code), message: message).text, headers: headers)
  }

  /// Answers with `status` and the JSON `body` (its length alone for a HEAD), then closes the
  /// connection.
  private func answer(
    _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ body: String, headers: [(String, String)] = [],
    withBody: Bool = true
  ) {
    answered = true
    var headers = HTTPHeaders(headers)
    headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
    headers.add(name: "Content-Length", value: "\(body.utf8.count)")
    headers.add(name: "Connection", value: "close")
    let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    if withBody { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil) }
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
  }
}
