import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore

/// `--max-connections`, with a small reserve of connections beyond it so that a liveness probe
/// is answered while the server is full rather than waiting in the kernel's backlog until it
/// times out. Hummingbird accepts up to the limit and the reserve together (more wait in the
/// backlog, as before); a connection that finds the limit's places taken is one of the reserve,
/// and `RequestHeadHandler` answers its first request itself (`/healthz` 200, anything else 503)
/// and closes it. Such a connection holds only its request's head, within NIO's 80 KB, and for
/// `--idle-timeout` at most, so the reserve's memory is bounded as the limit's is.
final class ConnectionLimit: Sendable {
  let limit: Int
  /// Connections open within the limit.
  private let open = NIOLockedValueBox(0)

  init(_ limit: Int) { self.limit = limit }

  /// Hummingbird's bound on accepted connections: the limit and the reserve.
  var accepted: MaximumAvailableConnections {
    MaximumAvailableConnections(limit + ServerConfiguration.connectionReserve)
  }

  /// Takes one of the limit's places for `channel` until it closes; false when all are taken,
  /// and the connection is one of the reserve.
  func admit(_ channel: any Channel) -> Bool {
    let admitted = open.withLockedValue { open in
      guard open < limit else { return false }
      open += 1
      return true
    }
    if admitted { channel.closeFuture.whenComplete { _ in self.open.withLockedValue { $0 -= 1 } } }
    return admitted
  }
}
