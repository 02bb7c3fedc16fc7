import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import VisageHosting
import VisageRequests

/// `GET /v1/live?task=landmark|detect|analyze&…`: a WebSocket on which each binary message is
/// an encoded frame and each gets one text message back, in order (`LiveSession`).
struct LiveRoute {
  let engine: Engine

  func add(to router: Router<BasicWebSocketRequestContext>) {
    let keys = engine.configuration.apiKeys.map { Array($0.utf8) }
    let engine = self.engine
    router.ws(
      "/v1/live",
      shouldUpgrade: { request, _ in
        // A stream without a key, with bad options or beyond the limit is refused here, which
        // Hummingbird answers with a bare 400 (the same query on a POST route gives the
        // reason). Answering on the socket straight after the upgrade raced with the upgrade's
        // completion (a hang in 1 of 4 runs under load).
        guard keys.isEmpty || Self.carriesKey(request, keys), (try? Self.taskRequest(request)) != nil,
          engine.liveStreamsOpen < engine.configuration.maxLiveStreams
        else { return .dontUpgrade }
        return .upgrade([:])
      },
      onUpgrade: { inbound, outbound, context in
        // Refusals the upgrade could not foresee (another stream opened meanwhile, an option
        // the library refuses) answer the first frame, then the socket closes.
        func refuse(_ error: RequestError) async throws {
          for try await _ in inbound.messages(maxSize: engine.configuration.maxBodyBytes) {
            try await outbound.write(.text(ErrorEnvelope(error).text))
            return
          }
        }
        guard let request = try? Self.taskRequest(context.request) else { return }
        guard engine.openLiveStream() else {
          return try await refuse(
            RequestError(
              503,
              "\(engine.configuration.maxLiveStreams) live streams are open (--max-live-streams): try again shortly"))
        }
        defer { engine.closeLiveStream() }
        let (replies, continuation) = AsyncStream<String>.makeStream()
        let session: LiveSession
        do {
          session = try LiveSession(request, engine: engine) { continuation.yield($0) }
        } catch let error as RequestError {
          return try await refuse(error)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            do {
              for await reply in replies {
                try await outbound.write(.text(reply))
                session.replyWritten()
              }
            } catch {
              session.writerStopped()
              throw error
            }
          }
          // Set when the client vanished or broke the protocol: nothing more is answered, and
          // the error is thrown on at the end, so that swift-websocket closes with the status
          // it names (1002 for a continuation with no start, say) rather than 1000.
          var failure: (any Error)?
          do {
            for try await message in inbound.messages(maxSize: engine.configuration.maxBodyBytes) {
              // A client that does not read its replies is not read either: this waits
              // (suspended, not polling) until the writer has caught up.
              await session.roomForReplies()
              try Task.checkCancellation()
              switch message {
              case .binary(var buffer): await session.frame(buffer.readBytes(length: buffer.readableBytes) ?? [])
              case .text:
                session.answer(
                  ErrorEnvelope(code: 400, message: "send each frame as a binary message (a JPEG or PNG file)").text)
              }
            }
          } catch {
            failure = error
          }
          await session.finish()
          continuation.finish()
          try await group.waitForAll()
          if let failure { throw failure }
        }
      })
  }

  /// The stream's task and options from its query.
  static func taskRequest(_ request: Request) throws -> TaskRequest {
    guard let name = request.uri.queryParameters["task"], let kind = FaceTaskKind(rawValue: String(name)) else {
      throw RequestError.badRequest("/v1/live needs task=landmark, detect or analyze")
    }
    return try TaskRequest(kind: kind, uri: request.uri, live: true, ignored: ["task", "key"])
  }

  static func carriesKey(_ request: Request, _ keys: [[UInt8]]) -> Bool {
    guard let given = APIKeyMiddleware<BasicRequestContext>.key(of: request) else { return false }
    return APIKeyMiddleware<BasicRequestContext>.matches(Array(given.utf8), keys)
  }
}
