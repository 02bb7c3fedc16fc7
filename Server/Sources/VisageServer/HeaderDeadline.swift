import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Closes a connection whose first request's headers have not arrived in full within the
/// timeout. Hummingbird's idle timeout starts only once a request head is parsed when
/// WebSocket upgrades are on, so without this a client trickling header bytes (slowloris)
/// would hold its connection for ever. Later requests on the connection are covered by the
/// idle timeout.
final class HeaderReadDeadline: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  private let timeout: TimeAmount
  private var timer: Scheduled<Void>?
  private var lastFour: UInt32 = 0

  init(timeout: TimeAmount) { self.timeout = timeout }

  func handlerAdded(context: ChannelHandlerContext) {
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if timer != nil {
      // Disarmed at the first blank line, the end of the first request's headers.
      for byte in unwrapInboundIn(data).readableBytesView {
        lastFour = (lastFour << 8) | UInt32(byte)
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

/// A server child channel with `HeaderReadDeadline` first in its pipeline.
struct WithHeaderDeadline<Base: ServerChildChannel>: ServerChildChannel {
  let base: Base
  let timeout: TimeAmount

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
    do { try channel.pipeline.syncOperations.addHandler(HeaderReadDeadline(timeout: timeout)) } catch {
      return channel.eventLoop.makeFailedFuture(error)
    }
    return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
      // Right after the request decoder, so that it sees the decoder's errors first.
      let operations = channel.pipeline.syncOperations
      if let decoder = try? operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
        try operations.addHandler(CloseOnProtocolError(), position: .after(decoder))
      }
      return value
    }
  }

  func handle(value: Base.Value, logger: Logger) async { await base.handle(value: value, logger: logger) }
}

/// Closes a connection whose request NIO cannot parse (a NUL byte in a header, say). With
/// WebSocket upgrades on, Hummingbird turns off NIO's protocol error handler and nothing else
/// answers such a request: the connection stayed open, answered never (found by Schemathesis).
final class CloseOnProtocolError: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart

  func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if error is HTTPParserError { context.close(promise: nil) }
    context.fireErrorCaught(error)
  }
}
