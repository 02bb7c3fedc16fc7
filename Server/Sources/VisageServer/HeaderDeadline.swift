import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import VisageRequests

/// Closes a connection whose first request's headers have not arrived in full within the
/// timeout. Hummingbird's idle timeout starts only once a request head is parsed when
/// WebSocket upgrades are on (`HTTP1WebSocketUpgradeChannel` adds its state handler in the
/// upgrade's setup, which NIO calls on a complete head; plain `HTTP1Channel` adds it at
/// once), so without this a client trickling header bytes (slowloris) would hold its
/// connection for ever; no upstream issue covers it (hummingbird PR #821 leaves slowloris to
/// later work). Later requests on the connection are covered by the idle timeout.
///
/// It also sees that connections are answered when the server shuts down. Hummingbird tells
/// each connection to finish its request and close (`ChannelShouldQuiesceEvent`), but a
/// connection accepted just before then either is never handed to a handler, or has not yet
/// installed the one that listens for that event: its request went unanswered and the
/// connection open until the process exited (found by `.ci/server-checks`'s SIGTERM check).
/// NIO fires the event once, into a pipeline that has nothing listening before the first head,
/// and drops a child whose setup finishes after the listener closed (apple/swift-nio#2813,
/// open). So the event is passed on again every 100 ms until the connection closes, and a
/// connection not handled while the server drains is answered 503 here, in raw bytes, and
/// closed.
final class HeaderReadDeadline: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer
  private let timeout: TimeAmount
  private let handling: ConnectionHandling
  private var timer: Scheduled<Void>?
  private var lastFour: UInt32 = 0
  private var requestLineBytes = 0
  private var quiesceRepeats = 0

  private let isDraining: @Sendable () -> Bool

  init(timeout: TimeAmount, handling: ConnectionHandling, isDraining: @escaping @Sendable () -> Bool) {
    self.timeout = timeout
    self.handling = handling
    self.isDraining = isDraining
  }

  /// Answers 503 in raw bytes and closes: for a connection no handler will ever answer.
  private func refuse(_ context: ChannelHandlerContext) {
    let body = ErrorEnvelope(code: 503, message: "the server is shutting down").text
    let response =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\n"
      + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { _ in
      loopBound.value.close(promise: nil)
    }
  }

  /// Every 250 ms until Hummingbird handles the connection: once the server is draining, a
  /// connection still not handled never will be, so it is refused here.
  private func watchHandling(_ context: ChannelHandlerContext) {
    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: .milliseconds(250)) {
      let (handler, context) = loopBound.value
      guard context.channel.isActive, !handler.handling.started else { return }
      if handler.isDraining() { handler.refuse(context) } else { handler.watchHandling(context) }
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
    context.fireUserInboundEventTriggered(event)
    quiesceRepeats += 1
    if quiesceRepeats > 5 && !handling.started { return refuse(context) }
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: .milliseconds(100)) {
      let context = loopBound.value
      if context.channel.isActive { context.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: timeout) { [handling] in
      handling.timeOut()
      loopBound.value.close(promise: nil)
    }
    watchHandling(context)
  }

  func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if timer != nil {
      // Disarmed at the first blank line, the end of the first request's headers.
      for byte in unwrapInboundIn(data).readableBytesView {
        lastFour = (lastFour << 8) | UInt32(byte)
        if !handling.requestLineSeen {
          requestLineBytes += 1
          if lastFour & 0xFFFF == 0x0D0A { handling.sawRequestLine(length: requestLineBytes) }
        }
        if lastFour == 0x0D0A_0D0A {
          timer?.cancel()
          timer = nil
          break
        }
      }
    }
    context.fireChannelRead(data)
  }
}

/// Whether Hummingbird has started to handle a connection, whether the header deadline closed
/// it, how long its first request line was (a head over NIO's limit is answered 414 when its
/// request line is most of it, else 431), and whether it is beyond `--max-connections`.
final class ConnectionHandling: Sendable {
  /// Whether the connection is one of `ConnectionLimit`'s reserve, answered by
  /// `RequestHeadHandler` alone.
  let beyondLimit: Bool
  init(beyondLimit: Bool) { self.beyondLimit = beyondLimit }

  private struct State {
    var started = false
    var timedOut = false
    var requestLine: Int?
  }
  private let state = NIOLockedValueBox(State())
  var started: Bool { state.withLockedValue { $0.started } }
  func start() { state.withLockedValue { $0.started = true } }
  var timedOut: Bool { state.withLockedValue { $0.timedOut } }
  func timeOut() { state.withLockedValue { $0.timedOut = true } }
  var requestLineSeen: Bool { state.withLockedValue { $0.requestLine != nil } }
  /// Whether the request line is over 40 KB, or has not ended.
  var requestLineTooLong: Bool { state.withLockedValue { $0.requestLine.map { $0 > 40 << 10 } ?? true } }
  func sawRequestLine(length: Int) { state.withLockedValue { $0.requestLine = length } }
}

/// A server child channel with `HeaderReadDeadline` first in its pipeline, `RequestHeadHandler`
/// after the request decoder, and `WebSocketChecks` once a WebSocket upgrade completes; a
/// connection beyond `--max-connections` is left to `RequestHeadHandler` (`ConnectionLimit`).
struct WithHeaderDeadline<Base: ServerChildChannel>: ServerChildChannel {
  let base: Base
  let timeout: TimeAmount
  let limit: ConnectionLimit
  /// Whether the server is shutting down.
  let isDraining: @Sendable () -> Bool
  /// Whether a request head with `Expect: 100-continue` is to have its body (`RequestHeadHandler`).
  let continues: @Sendable (HTTPRequestHead) -> Bool

  struct Value: ServerChildChannelValue {
    let base: Base.Value
    let handling: ConnectionHandling
    /// Completed when NIO has read the first request and upgraded (or not): the future
    /// Hummingbird's WebSocket channel waits on.
    let upgraded: EventLoopFuture<Void>?
    var channel: any Channel { base.channel }
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let handling = ConnectionHandling(beyondLimit: !limit.admit(channel))
    do {
      try channel.pipeline.syncOperations.addHandlers(
        CallerWatch(), HeaderReadDeadline(timeout: timeout, handling: handling, isDraining: isDraining))
    } catch {
      limit.setUp()
      return channel.eventLoop.makeFailedFuture(error)
    }
    let value = base.setup(channel: channel, logger: logger).flatMapThrowing { value in
      // Right after the request decoder, so that it sees the decoder's errors first.
      let operations = channel.pipeline.syncOperations
      if let decoder = try? operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
        try operations.addHandler(
          RequestHeadHandler(handling: handling, continues: continues), position: .after(decoder))
      }
      try operations.addHandler(AddsWebSocketChecks())
      let upgrader = try? operations.handler(
        type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
      return Value(base: value, handling: handling, upgraded: upgrader?.upgradeResultFuture.map { _ in })
    }
    value.whenComplete { _ in limit.setUp() }
    return value
  }

  func handle(value: Value, logger: Logger) async {
    value.handling.start()
    // RequestHeadHandler answers such a connection and closes it; Hummingbird, handed it,
    // would log its upgrade's failure then as an error.
    if value.handling.beyondLimit { return }
    // A connection the header deadline closed fails the upgrade's future, which Hummingbird
    // logs as an error ("Error handling upgrade result": every error but NIO's inputClosed,
    // see apple/swift-nio#2631), though all went as meant: such a connection is not handed on.
    if let upgraded = value.upgraded, await (try? upgraded.get()) == nil, value.handling.timedOut { return }
    await base.handle(value: value.base, logger: logger)
  }
}
