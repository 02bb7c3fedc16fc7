import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Whether a connection's client is still there to read an answer. It has gone once it closed
/// its side (a FIN: an HTTP/1.1 client that still wants its answer keeps the connection open,
/// which is what nginx's 499 assumes too) or the connection closed (a reset). A request whose
/// client has gone is dropped before it runs, or cut off after decoding (`Engine`).
final class CallerPresence: Sendable {
  private let left = NIOLockedValueBox(false)
  var hasLeft: Bool { left.withLockedValue { $0 } }
  func leave() { left.withLockedValue { $0 = true } }
}

/// Watches a connection for its client leaving (`CallerPresence`): first in the pipeline, it
/// sees the end of input and the close before anything else does, whatever the handlers after
/// it are doing with the request.
final class CallerWatch: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  let presence = CallerPresence()

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? ChannelEvent, event == .inputClosed { presence.leave() }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    presence.leave()
    context.fireChannelInactive()
  }
}

/// The routes' request context: Hummingbird's basic one, and the connection a request came on,
/// whose `CallerWatch` says whether its client is still there.
struct VisageRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }

  /// The presence of the request's client; nil on a connection with no watch (a test's).
  func callerPresence() async -> CallerPresence? {
    try? await channel.eventLoop.submit { [channel] in
      try channel.pipeline.syncOperations.handler(type: CallerWatch.self).presence
    }.get()
  }
}
