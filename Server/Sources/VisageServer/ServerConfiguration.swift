import VisageImageIO

/// How a visage-server runs: its address, pool, limits and key. The command line's flags set
/// it (`visage-server --help`); tests make their own.
public struct ServerConfiguration: Sendable {
  /// The address to listen on: 127.0.0.1 unless told otherwise.
  public var host = "127.0.0.1"
  public var port = 8080
  /// One-thread task copies answering requests side by side.
  public var threads = 1
  /// Requests that may wait for a copy besides those running; one more is answered 503.
  public var queueDepth = 8
  /// The largest request body: 20 MiB, Cloud Vision's image limit.
  public var maxBodyBytes = 20 << 20
  /// The largest image, in pixels, refused before decoding (422).
  public var maxPixels = ImageLimits.defaultMaximumPixels
  /// API keys a request must carry (`x-api-key` or `Authorization: Bearer`); none: no check.
  public var apiKeys: [String] = []
  /// Open connections served at most. `ConnectionLimit.reserve` more are accepted, for
  /// liveness probes (`/healthz` 200, anything else 503); more still wait in the kernel's
  /// backlog until one closes.
  public var maxConnections = 256
  /// Live streams (WebSocket connections) at once, each with a task of its own.
  public var maxLiveStreams = 4
  /// Seconds a connection may stay silent between requests, and the most a request's
  /// headers may take to arrive.
  public var idleTimeoutSeconds = 30
  /// Seconds a request's body may take to arrive in full (408 after). Longer than the idle
  /// timeout, which closes a connection whose body stops, so that a slow but steady upload
  /// (20 MiB at 4 Mbit/s) gets through.
  public var bodyTimeoutSeconds = 60
  /// Seconds SIGTERM or SIGINT waits for requests in flight before the process exits anyway.
  public var drainSeconds = 25
  /// Tasks of distinct options each copy keeps loaded (the least recently used goes first).
  public var tasksPerCopy = 4
  /// A folder to serve the page at `/` from (read at start) instead of the copy built with
  /// the server: for working on the page, or a page of one's own.
  public var pageDirectory: String?

  public init() {}

  /// The image decoders' limits.
  public var imageLimits: ImageLimits { ImageLimits(maximumPixels: maxPixels) }
}
