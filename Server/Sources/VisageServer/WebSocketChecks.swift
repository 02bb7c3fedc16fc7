import NIOCore
import NIOHTTP1
import NIOWebSocket

/// What RFC 6455 asks of a server that NIO and swift-websocket leave undone, between NIO's
/// frame decoder and Hummingbird's WebSocket handler on a live stream:
///
/// - A frame from the client without a mask fails the connection with close status 1002
///   (protocol error), as §5.1 requires. NIO's decoder reads the mask bit only to unmask, and
///   swift-websocket never sees it; there is no option for the check.
/// - A close by any handler after this one (NIO's `WebSocketProtocolErrorHandler` after its
///   1009 for a frame over the limit, swift-websocket after its close frame) shuts the output
///   first, then reads and drops what the client still sends until it closes its side too (a
///   second at most). Closed at once, with part of an oversized frame unread, the kernel reset
///   the connection, and a client still sending got the reset rather than the close frame.
final class WebSocketChecks: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame
  typealias OutboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  /// How long a close waits for the client to close its side.
  static let linger = TimeAmount.seconds(1)

  private var inputClosed = false
  /// Set once the output is shut: succeeds when the connection has closed in full.
  private var closing: EventLoopPromise<Void>?

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard closing == nil else { return }
    guard unwrapInboundIn(data).maskKey != nil else {
      var status = context.channel.allocator.buffer(capacity: 2)
      status.write(webSocketErrorCode: .protocolError)
      let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: status)
      context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
      return close(context: context, mode: .all, promise: nil)
    }
    context.fireChannelRead(data)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case .inputClosed? = event as? ChannelEvent {
      inputClosed = true
      if closing != nil { context.close(mode: .all, promise: nil) }
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    closing?.succeed()
    context.fireChannelInactive()
  }

  func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
    guard mode == .all, !inputClosed else { return context.close(mode: mode, promise: promise) }
    if let closing { return closing.futureResult.cascade(to: promise) }
    let closing = context.eventLoop.makePromise(of: Void.self)
    self.closing = closing
    closing.futureResult.cascade(to: promise)
    context.close(mode: .output, promise: nil)
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: Self.linger) {
      let context = loopBound.value
      if context.channel.isActive { context.close(mode: .all, promise: nil) }
    }
  }
}

/// Put last in a new connection's pipeline, after NIO's upgrade handler, so that it sees the
/// upgrade complete: NIO's WebSocket handlers have then been added after it, and it puts
/// `WebSocketChecks` right after the frame decoder, before any frame is decoded. It takes itself
/// out then, or at the first request when there is no upgrade.
final class AddsWebSocketChecks: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = Any

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case .upgradeComplete? = event as? HTTPServerUpgradeEvents {
      let operations = context.pipeline.syncOperations
      if let decoder = try? operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) {
        try? operations.addHandler(WebSocketChecks(), position: .after(decoder))
      }
      context.fireUserInboundEventTriggered(event)
      return operations.removeHandler(context: context, promise: nil)
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }
}
