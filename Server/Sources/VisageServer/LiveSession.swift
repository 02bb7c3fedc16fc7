import Foundation
import Visage
import VisageImageIO
import VisageRequests
import VisageService

/// One `/v1/live` stream: its own task in live-stream mode, so tracking and smoothing are its
/// own. Each frame gets one reply, in order: its result, `"dropped": true` when the flow
/// limiter skipped it (one frame in flight, a newer one waiting in its place, as MediaPipe's
/// live-stream mode does), or an error in the envelope's shape.
///
/// Results come back on the task's own queue in timestamp order, so a result for one frame
/// means every earlier frame still waiting was dropped (as the command line's live-stream
/// output reads them).
final class LiveSession: @unchecked Sendable {
  private struct Pending {
    let source: String
    let timestampMs: Int
    /// What the reply says of the picture, or why there is none (then it was never
    /// submitted). Not the pixels: a frame waiting for its answer holds a few bytes.
    let image: Result<PictureFacts, RequestError>
  }

  private let lock = NSLock()
  /// Under `lock`: frames answered next, in order.
  private var pending: [Pending] = []
  private var frameCount = 0
  private var lastTimestamp = -1
  private let start = ContinuousClock.now
  private let send: @Sendable (String) -> Void
  private let metrics: ServerMetrics
  private let limits: ImageLimits
  private let ignoresExif: Bool
  private var runner: LiveRunner!
  /// The reply for a dropped frame: the task's empty result, with the outputs asked for.
  private let dropped: (PictureFacts, String, Int) throws -> JSONValue
  /// Decodes the frames one at a time, off Swift concurrency's few threads.
  private let decoding = DispatchQueue(label: "visage-server.live-decode")
  /// Under `lock`: replies handed to `send` and not yet written (`replyWritten`).
  private var unwritten = 0

  /// Makes the stream's task; `send` takes each reply in order. Throws `RequestError` for
  /// options the library refuses.
  init(_ request: TaskRequest, engine: Engine, send: @escaping @Sendable (String) -> Void) throws {
    self.send = send
    metrics = engine.metrics
    limits = engine.configuration.liveImageLimits
    ignoresExif = request.flag("ignore-exif")
    let models = engine.models
    dropped = Self.droppedReply(for: request)
    let weak = WeakSession(self)
    switch request.kind {
    case .detect:
      let outputs = request.detectorOutputs
      let detector = try ServedTask.library {
        try FaceDetector(
          options: request.detectorOptions(models: models) { result, t, error in
            weak.session?.deliver(t, error: error) {
              try report($0, source: $1, result: result!, timestampMs: t, outputs: outputs)
            }
          })
      }
      runner = LiveRunner(
        submit: { try detector.detectAsync(image: $0, timestampInMilliseconds: $1) }, wait: detector.waitUntilIdle)
    case .landmark:
      let outputs = request.landmarkerOutputs
      let landmarker = try ServedTask.library {
        try FaceLandmarker(
          options: request.landmarkerOptions(models: models) { result, t, error in
            weak.session?.deliver(t, error: error) {
              try report($0, source: $1, result: result!, timestampMs: t, outputs: outputs)
            }
          })
      }
      runner = LiveRunner(
        submit: { try landmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }, wait: landmarker.waitUntilIdle)
    case .analyze:
      // The analyzer has video mode only (as ML Kit's); the stream gets the same flow limit
      // as the other tasks from `SlotRunner`.
      let analyzer = try ServedTask.library {
        try FaceAnalyzer(options: request.analyzerOptions(models: models, video: true))
      }
      let slot = SlotRunner { image, t in
        let outcome = Result { try analyzer.analyze(videoFrame: image, timestampInMilliseconds: t) }
        let error: (any Error)? = if case .failure(let error) = outcome { error } else { nil }
        weak.session?.deliver(t, error: error) {
          try report($0, source: $1, result: FacesResult(faces: try outcome.get()), timestampMs: t)
        }
      }
      runner = LiveRunner(submit: { slot.submit($0, $1) }, wait: slot.waitUntilIdle)
    }
  }

  /// The reply for a frame the flow limiter dropped: `"dropped": true` and the task's empty
  /// result, with every output the options ask for, as the command line's dropped lines.
  private static func droppedReply(for request: TaskRequest) -> (PictureFacts, String, Int) throws -> JSONValue {
    switch request.kind {
    case .detect:
      let outputs = request.detectorOutputs
      return {
        try report(
          $0, source: $1, result: FaceDetectorResult(detections: [], timestampInMilliseconds: $2), timestampMs: $2,
          dropped: true, outputs: outputs)
      }
    case .landmark:
      let outputs = request.landmarkerOutputs
      return {
        let empty = FaceLandmarkerResult(
          faceLandmarks: [], faceBlendshapes: [], facialTransformationMatrixes: [], timestampInMilliseconds: $2)
        return try report($0, source: $1, result: empty, timestampMs: $2, dropped: true, outputs: outputs)
      }
    case .analyze:
      return { try report($0, source: $1, result: FacesResult(faces: []), timestampMs: $2, dropped: true) }
    }
  }

  /// One encoded frame, in the order received: decoded on the session's own queue and handed
  /// to the task; returns once it is handed over, so a client sending faster than frames
  /// decode is slowed by TCP rather than queued in memory.
  func frame(_ bytes: [UInt8]) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      decoding.async {
        self.frame(decoding: bytes)
        done.resume()
      }
    }
  }

  private func frame(decoding bytes: [UInt8]) {
    let decoded = Result { () throws(RequestError) in try decodeImage(bytes, ignoresExif: ignoresExif, limits: limits) }
    lock.lock()
    let elapsed = Int((ContinuousClock.now - start) / .milliseconds(1))
    let t = max(lastTimestamp + 1, elapsed)
    lastTimestamp = t
    let source = "frame#\(frameCount)"
    frameCount += 1
    pending.append(Pending(source: source, timestampMs: t, image: decoded.map(PictureFacts.init)))
    lock.unlock()
    metrics.liveFrameReceived()
    guard case .success(let image) = decoded else { return flushLeadingFailures() }
    do { try runner.submit(image.image, t) } catch {
      // Not submitted: answered as a failure in its turn.
      lock.withLock {
        if let i = pending.firstIndex(where: { $0.timestampMs == t }) {
          pending[i] = Pending(source: source, timestampMs: t, image: .failure(.undecodable("\(error)")))
        }
      }
      flushLeadingFailures()
    }
  }

  /// The client is gone or done: waits for the frame in flight and answers the rest, on a
  /// thread of its own (the wait may last a whole frame's processing).
  func finish() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        self.runner.wait()
        self.lock.withLock { self.flush(before: .max) }
        done.resume()
      }.start()
    }
  }

  /// The task's callback for the frame at `t`: the frames before it are dropped, then it is
  /// answered with `encode`'s JSON (or its error).
  private func deliver(_ t: Int, error: (any Error)?, encode: (PictureFacts, String) throws -> JSONValue) {
    lock.withLock {
      flush(before: t)
      guard let first = pending.first, first.timestampMs == t, case .success(let image) = first.image else { return }
      pending.removeFirst()
      do {
        if let error { throw error }
        reply(try encode(image, first.source).description)
      } catch {
        reply(Self.failure(first, RequestError.undecodable("\(error)")))
      }
      flushFailures()
    }
  }

  private func flushLeadingFailures() { lock.withLock { flushFailures() } }

  /// Under `lock`: answers the failed frames at the head, which wait for nothing.
  private func flushFailures() {
    while let first = pending.first, case .failure(let error) = first.image {
      pending.removeFirst()
      reply(Self.failure(first, error))
    }
  }

  /// Under `lock`: answers every frame before `t`: failures as such, the rest as dropped.
  private func flush(before t: Int) {
    while let first = pending.first, first.timestampMs < t || t == .max {
      pending.removeFirst()
      switch first.image {
      case .failure(let error): reply(Self.failure(first, error))
      case .success(let facts):
        metrics.liveFrameDropped()
        do { reply(try dropped(facts, first.source, first.timestampMs).description) } catch {
          reply(Self.failure(first, RequestError.undecodable("\(error)")))
        }
      }
    }
  }

  /// Under `lock`: hands a reply on, counting it until it is written.
  private func reply(_ text: String) {
    unwritten += 1
    send(text)
  }

  /// A reply of the route's own (to a text message), in the same count.
  func answer(_ text: String) { lock.withLock { reply(text) } }

  /// The writer wrote one reply.
  func replyWritten() { lock.withLock { unwritten -= 1 } }

  /// Replies waiting to be written: the route reads no more frames while there are many, so
  /// a client that does not read its replies cannot make them pile up.
  var repliesWaiting: Int { lock.withLock { unwritten } }

  private static func failure(_ frame: Pending, _ error: RequestError) -> String {
    ErrorEnvelope(code: error.code, message: error.message, source: frame.source, timestampMs: frame.timestampMs).text
  }
}

/// How a session hands frames to its task, and waits for it.
struct LiveRunner {
  let submit: (MPImage, Int) throws -> Void
  let wait: () -> Void
}

/// Breaks the cycle task → callback → session → task.
private final class WeakSession: @unchecked Sendable {
  weak var session: LiveSession?
  init(_ session: LiveSession) { self.session = session }
}

/// MediaPipe's live-stream flow limit for a task that has only video mode: one frame in
/// flight on a queue of its own, and one waiting, which a newer frame replaces (the replaced
/// one is never processed, and so is answered as dropped).
final class SlotRunner: @unchecked Sendable {
  private let process: (MPImage, Int) -> Void
  private let queue = DispatchQueue(label: "visage-server.live-analyze")
  private let lock = NSLock()
  private var busy = false
  private var waiting: (MPImage, Int)?

  init(process: @escaping (MPImage, Int) -> Void) { self.process = process }

  func submit(_ image: MPImage, _ t: Int) {
    let start = lock.withLock { () -> Bool in
      if busy {
        waiting = (image, t)
        return false
      }
      busy = true
      return true
    }
    if start { queue.async { self.run(image, t) } }
  }

  private func run(_ image: MPImage, _ t: Int) {
    var next: (MPImage, Int)? = (image, t)
    while let (image, t) = next {
      process(image, t)
      next = lock.withLock {
        let taken = waiting
        waiting = nil
        if taken == nil { busy = false }
        return taken
      }
    }
  }

  func waitUntilIdle() {
    while lock.withLock({ busy }) { queue.sync {} }
  }
}
