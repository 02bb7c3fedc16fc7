import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// visage-server's application: the HTTP routes and the live stream on one port, with the
/// connection limit (and its reserve for probes), the idle and header timeouts, and the
/// WebSocket frame limit.
public func makeApplication(engine: Engine, logger: Logger = Logger(label: "visage-server"))
  -> some ApplicationProtocol
{
  makeApplication(engine: engine, connections: ConnectionLimit(engine.configuration.maxConnections), logger: logger)
}

func makeApplication(engine: Engine, connections: ConnectionLimit, logger: Logger) -> some ApplicationProtocol {
  let configuration = engine.configuration
  // HEAD on a GET path is answered as GET is, without the body (`HEAD /healthz` is a probe's
  // request).
  let router = Router(context: VisageRequestContext.self, options: .autoGenerateHeadEndpoints)
  Routes(engine: engine).add(to: router)
  let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
  LiveRoute(engine: engine).add(to: webSocketRouter)
  let webSocketResponder = webSocketRouter.buildResponder()
  let idle = TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds))
  let server = HTTPServerBuilder { responder in
    WithHeaderDeadline(
      base: HTTP1WebSocketUpgradeChannel(
        responder: responder, webSocketResponder: webSocketResponder,
        configuration: .init(
          http1: .init(idleTimeout: idle),
          ws: .init(maxFrameSize: configuration.maxBodyBytes, autoPing: .enabled(timePeriod: .seconds(30))))),
      timeout: idle, limit: connections, isDraining: { engine.isDraining },
      continues: { head in
        // The body is read when it is within the limit and a copy or queue place is free now.
        let length = head.headers["content-length"].first.flatMap { Int($0) } ?? 0
        return length <= configuration.maxBodyBytes && engine.hasRoom
      })
  }
  return Application(
    router: router, server: server,
    configuration: .init(
      address: .hostname(configuration.host, port: configuration.port), serverName: "visage-server",
      availableConnectionsDelegate: connections),
    onServerRunning: { channel in
      logger.notice("visage-server listening on \(channel.localAddress.map { "\($0)" } ?? "?")")
    },
    logger: logger)
}

/// Runs the server until SIGTERM or SIGINT: then it stops admitting requests (503, `/readyz`
/// 503), closes the listening socket, answers what is in flight within `drainSeconds`, and
/// returns.
public func runServer(engine: Engine, logger: Logger = Logger(label: "visage-server")) async throws {
  let connections = ConnectionLimit(engine.configuration.maxConnections)
  let app = makeApplication(engine: engine, connections: connections, logger: logger)
  var group = ServiceGroupConfiguration(
    services: [
      .init(service: app),
      // Last, so shut down first: requests are refused, and connections no longer accepted,
      // before the socket closes.
      .init(
        service: DrainOnShutdown(engine: engine, connections: connections), successTerminationBehavior: .ignore),
    ], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
  group.maximumGracefulShutdownDuration = .seconds(engine.configuration.drainSeconds)
  group.maximumCancellationDuration = .seconds(5)
  try await ServiceGroup(configuration: group).run()
  engine.shutdown()
}

/// When graceful shutdown starts: marks the engine draining, stops accepting connections and
/// waits until the ones accepted are set up (`ConnectionLimit`), before Hummingbird closes the
/// listening socket.
struct DrainOnShutdown: Service {
  let engine: Engine
  let connections: ConnectionLimit
  func run() async throws {
    try? await gracefulShutdown()
    engine.drain()
    connections.stopAccepting()
    await connections.waitForSetUp()
  }
}
