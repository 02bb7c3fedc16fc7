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
  /// The largest live-stream frame, in pixels (422 for that frame): 3840x2160, a 4K camera's.
  /// Frames are decoded on each stream's own queue, beside the copies, so this bounds their
  /// share of memory apart from `maxPixels`, which only the copies' (at most `threads`) decode.
  public var maxLivePixels = 3840 * 2160
  /// The most model runs one wider search (`range=all`, `detector-range=all`,
  /// `performance=accurate`, `images:annotate`, `any-rotation`) may plan; an image that needs
  /// more is refused (422) before any run. 3,000 (about 3 s of one core, with the looks at most
  /// 5 s) takes a 12 MP photo upright, where the library's own 30,000 let an 8000x8000 image
  /// hold a copy for 25 s.
  public var maxSearchRuns = 3_000
  /// API keys a request must carry (`x-api-key` or `Authorization: Bearer`); none: no check.
  public var apiKeys: [String] = []
  /// Open connections served at most. `connectionReserve` more are accepted, for
  /// liveness probes (`/healthz` 200, anything else 503); more still wait in the kernel's
  /// backlog until one closes.
  public var maxConnections = 256
  /// Connections accepted beyond `maxConnections`, for liveness probes (`ConnectionLimit`).
  public static let connectionReserve = 8
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
  /// Models served over the Open Inference Protocol beside the bundled ones (`--model
  /// NAME=PATH`): a name, and a `.tflite` file or `bundle.task:entry.tflite`.
  public var inferenceModels: [(name: String, path: String)] = []

  public init() {}

  /// The image decoders' limits.
  public var imageLimits: ImageLimits { ImageLimits(maximumPixels: maxPixels) }
  /// The most bytes one decoding image holds at its peak, a pixel: 3 for its RGB, 3 more for a
  /// progressive JPEG's coefficients or the upright copy of a turned one, 7 for both
  /// (measured on 8000x8000 images by `Server/Tools/hostile_clients.py`'s kind, VmHWM).
  public static let decodingBytesPerPixel = 7

  /// The most memory requests can take beyond the server's size at rest: an image decoding on
  /// every copy (`threads`) at `maxPixels` and on every live stream at `maxLivePixels`, and
  /// the body budget full. Requests never take more: decoding happens only on the copies and
  /// the streams' own queues, and a body over the budget is refused (docs/server.md, "Memory").
  public var memoryForRequests: Int {
    let perImage = Self.decodingBytesPerPixel
    return threads * perImage * maxPixels + maxLiveStreams * perImage * min(maxPixels, maxLivePixels)
      + (threads + queueDepth + 2) * maxBodyBytes
  }

  /// The limits for live-stream frames.
  public var liveImageLimits: ImageLimits { ImageLimits(maximumPixels: min(maxPixels, maxLivePixels)) }
}
