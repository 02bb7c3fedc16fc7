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
///
/// It is also how shutdown stops accepting before the listening socket closes. NIO drops a
/// connection it accepted whose setup finishes after the listener closed (apple/swift-nio#2813,
/// open): neither answered nor closed until the process exits. So on SIGTERM the server first
/// stops taking connections from the kernel's queue (`stopAccepting`), waits until every one
/// it took is set up (`waitForSetUp`, when `HeaderReadDeadline` sees that it is answered), and
/// only then lets Hummingbird close the socket; the ones left in the queue are reset by the
/// kernel then, as before.
final class ConnectionLimit: AvailableConnectionsDelegate, Sendable {
  let limit: Int
  private struct Counts {
    /// Connections open within the limit.
    var open = 0
    /// Connections accepted (within the limit and the reserve) and not yet closed.
    var accepted = 0
    /// Connections accepted whose setup has not finished.
    var settingUp = 0
    var stopped = false
  }
  private let counts = NIOLockedValueBox(Counts())

  init(_ limit: Int) { self.limit = limit }

  /// Takes one of the limit's places for `channel` until it closes; false when all are taken,
  /// and the connection is one of the reserve.
  func admit(_ channel: any Channel) -> Bool {
    let admitted = counts.withLockedValue { counts in
      guard counts.open < limit else { return false }
      counts.open += 1
      return true
    }
    if admitted { channel.closeFuture.whenComplete { _ in self.counts.withLockedValue { $0.open -= 1 } } }
    return admitted
  }

  /// A connection's setup has finished (or failed).
  func setUp() { counts.withLockedValue { $0.settingUp = max(0, $0.settingUp - 1) } }

  // Hummingbird's hook on the listening socket: it calls these as NIO accepts and closes
  // connections, and stops reading from the socket while `isAcceptingNewConnections()` is false.
  func connectionOpened() {
    counts.withLockedValue {
      $0.accepted += 1
      $0.settingUp += 1
    }
  }
  func connectionClosed() { counts.withLockedValue { $0.accepted -= 1 } }
  func isAcceptingNewConnections() -> Bool {
    counts.withLockedValue { !$0.stopped && $0.accepted < limit + ServerConfiguration.connectionReserve }
  }

  /// Takes no more connections from the kernel's queue (from NIO's next read of the socket).
  func stopAccepting() { counts.withLockedValue { $0.stopped = true } }

  /// Waits until every connection accepted so far has been set up for 20 ms (time for NIO to
  /// hand it to Hummingbird), or `bound` has passed; a read of the socket NIO had already
  /// asked for may accept a few more after `stopAccepting`, and they are waited for too. (A
  /// connection closed during its setup is never counted as set up: then the bound ends it.)
  func waitForSetUp(bound: Duration = .seconds(1)) async {
    let clock = ContinuousClock()
    let deadline = clock.now + bound
    var settled = 0
    while settled < 2, clock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
      settled = counts.withLockedValue({ $0.settingUp }) == 0 ? settled + 1 : 0
    }
  }
}
