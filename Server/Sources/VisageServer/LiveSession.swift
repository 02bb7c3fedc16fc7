import Foundation
import NIOConcurrencyHelpers
import Visage
import VisageImageIO
import VisageReports
import VisageRequests

/// One `/v1/live` stream: its own task in live-stream mode, so tracking and smoothing are its
/// own. Each frame gets one reply, in order: its result, `"dropped": true` when the flow
/// limiter skipped it (one frame in flight, a newer one waiting in its place, as MediaPipe's
/// live-stream mode does), or an error in the envelope's shape.
///
/// The library decides which frames are dropped (`LiveStreamRunner`: the task's own in
/// live-stream mode, the session's for the analyzer) and answers every frame in order
/// (`LiveStreamRecord`), as the command line's live-stream output does.
final class LiveSession: Sendable {
  /// What a frame's reply says of it: its name and picture, nil when it did not decode. Not
  /// the pixels: a frame waiting for its answer holds a few bytes.
  struct Entry: Sendable {
    let source: String
    let facts: PictureFacts?
  }

  /// How a processed frame's reply is made: the task's result with the outputs asked for.
  typealias Encode = (PictureFacts, String) throws -> JSONValue

  private let record: LiveStreamRecord<Entry, Encode>
  private let replies: LiveReplies
  private let runner: LiveRunner
  /// Frames received so far, and the last one's timestamp.
  private let clock = NIOLockedValueBox((frames: 0, lastTimestamp: -1))
  private let start = ContinuousClock.now
  private let metrics: ServerMetrics
  private let limits: ImageLimits
  private let ignoresExif: Bool
  /// Decodes the frames one at a time, off Swift concurrency's few threads.
  private let decoding = DispatchQueue(label: "visage-server.live-decode")

  /// Makes the stream's task; `send` takes each reply in order. Throws `RequestError` for
  /// options the library refuses.
  init(_ request: TaskRequest, engine: Engine, send: @escaping @Sendable (String) -> Void) throws {
    let replies = LiveReplies(send: send)
    let metrics = engine.metrics
    let dropped = Self.droppedReply(for: request)
    let record = LiveStreamRecord<Entry, Encode> { entry, t, outcome in
      replies.send(Self.reply(to: entry, timestampMs: t, outcome, dropped: dropped, metrics: metrics))
    }
    (self.replies, self.metrics, self.record) = (replies, metrics, record)
    limits = engine.configuration.liveImageLimits
    ignoresExif = request.settings.flag("ignore-exif")
    let models = engine.models
    switch request.kind {
    case .detect:
      let outputs = request.detectorOutputs
      let detector = try ServedTask.library {
        try FaceDetector(
          options: request.detectorOptions(models: models) { result, t, error in
            record.deliver(
              Self.encoding(result, error) { try report($0, source: $1, result: $2, timestampMs: t, outputs: outputs) },
              timestamp: t)
          })
      }
      runner = LiveRunner(
        submit: { try detector.detectAsync(image: $0, timestampInMilliseconds: $1) },
        wait: { detector.waitUntilIdle() })
    case .landmark:
      let outputs = request.landmarkerOutputs
      let landmarker = try ServedTask.library {
        try FaceLandmarker(
          options: request.landmarkerOptions(models: models) { result, t, error in
            record.deliver(
              Self.encoding(result, error) { try report($0, source: $1, result: $2, timestampMs: t, outputs: outputs) },
              timestamp: t)
          })
      }
      runner = LiveRunner(
        submit: { try landmarker.detectAsync(image: $0, timestampInMilliseconds: $1) },
        wait: { landmarker.waitUntilIdle() })
    case .analyze:
      // The analyzer has video mode only (as ML Kit's); the stream gets the same flow limit
      // as the other tasks from the library's runner.
      let analyzer = try ServedTask.library {
        try FaceAnalyzer(options: request.analyzerOptions(models: models, video: true))
      }
      let flow = LiveStreamRunner<MPImage>(label: "visage-server.live-analyze") { image, t in
        let faces = Result { try analyzer.analyze(videoFrame: image, timestampInMilliseconds: t) }
        record.deliver(
          faces.map { faces -> Encode in
            { try report($0, source: $1, result: FacesResult(faces: faces), timestampMs: t) }
          },
          timestamp: t)
      }
      runner = LiveRunner(submit: { flow.submit($0, timestamp: $1) }, wait: { flow.waitUntilIdle() })
    }
  }

  /// A task callback's result or error, as the record takes it: the result is encoded by
  /// `encode` when its frame is answered.
  private static func encoding<R>(
    _ result: R?, _ error: (any Error)?, _ encode: @escaping (PictureFacts, String, R) throws -> JSONValue
  ) -> Result<Encode, any Error> {
    guard let result else { return .failure(error ?? RequestError.undecodable("no result")) }
    return .success { try encode($0, $1, result) }
  }

  /// The reply for a frame the flow limiter dropped: `"dropped": true` and the task's empty
  /// result, with every output the options ask for, as the command line's dropped lines.
  private static func droppedReply(for request: TaskRequest)
    -> @Sendable (PictureFacts, String, Int) throws -> JSONValue
  {
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

  /// The reply to one frame, given how it ended.
  private static func reply(
    to entry: Entry, timestampMs t: Int, _ outcome: LiveStreamOutcome<Encode>,
    dropped: (PictureFacts, String, Int) throws -> JSONValue, metrics: ServerMetrics
  ) -> String {
    do {
      switch outcome {
      case .failed(let error): throw error
      case .processed(let encode):
        guard let facts = entry.facts else { throw RequestError.undecodable("no picture") }
        return try encode.get()(facts, entry.source).description
      case .dropped:
        guard let facts = entry.facts else { throw RequestError.undecodable("no picture") }
        metrics.liveFrameDropped()
        return try dropped(facts, entry.source, t).description
      }
    } catch {
      let error = error as? RequestError ?? RequestError.undecodable("\(error)")
      return ErrorEnvelope(code: error.code, message: error.message, source: entry.source, timestampMs: t).text
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
    let (t, source) = clock.withLockedValue { clock in
      let elapsed = Int((ContinuousClock.now - start) / .milliseconds(1))
      clock.lastTimestamp = max(clock.lastTimestamp + 1, elapsed)
      defer { clock.frames += 1 }
      return (clock.lastTimestamp, "frame#\(clock.frames)")
    }
    metrics.liveFrameReceived()
    switch decoded {
    case .failure(let error): record.add(Entry(source: source, facts: nil), timestamp: t, failure: error)
    case .success(let image):
      record.add(Entry(source: source, facts: PictureFacts(image)), timestamp: t)
      // Not submitted: answered as a failure in its turn.
      do { try runner.submit(image.image, t) } catch { record.withdraw(timestamp: t, error: error) }
    }
  }

  /// The client is gone or done: waits for the frame in flight and answers the rest, on the
  /// session's decoding queue (idle by now; the wait may last a whole frame's processing).
  func finish() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      decoding.async {
        self.runner.wait()
        self.record.finish()
        done.resume()
      }
    }
  }

  /// A reply of the route's own (to a text message), in the same count.
  func answer(_ text: String) { replies.send(text) }

  /// The writer wrote one reply.
  func replyWritten() { replies.written() }

  /// The writer stopped (the client is gone): nothing waits for room any more.
  func writerStopped() { replies.stop() }

  /// Returns once few enough replies wait to be written: the route reads no more frames
  /// until then, so a client that does not read its replies cannot make them pile up.
  func roomForReplies() async { await replies.room() }
}

/// How a session hands frames to its task, and waits for it.
struct LiveRunner: Sendable {
  let submit: @Sendable (MPImage, Int) throws -> Void
  let wait: @Sendable () -> Void
}

/// The replies handed to the writer and not yet written, and the route waiting for room.
final class LiveReplies: Sendable {
  /// Replies that may wait to be written before the route stops reading frames.
  static let limit = 64

  private struct State: Sendable {
    var unwritten = 0
    var stopped = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let deliver: @Sendable (String) -> Void
  private let state = NIOLockedValueBox(State())

  init(send: @escaping @Sendable (String) -> Void) { deliver = send }

  /// Hands a reply on, counting it until it is written.
  func send(_ text: String) {
    state.withLockedValue { $0.unwritten += 1 }
    deliver(text)
  }

  func written() {
    state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
      state.unwritten -= 1
      guard state.unwritten <= Self.limit else { return nil }
      defer { state.waiter = nil }
      return state.waiter
    }?.resume()
  }

  func stop() {
    state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
      state.stopped = true
      defer { state.waiter = nil }
      return state.waiter
    }?.resume()
  }

  /// Returns at once while at most `limit` replies wait (or the writer has stopped), else
  /// once enough are written; cancelling the waiting task stops the wait too.
  func room() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let ready = state.withLockedValue { state in
          if state.stopped || state.unwritten <= Self.limit { return true }
          state.waiter = waiter
          return false
        }
        if ready { waiter.resume() }
      }
    } onCancel: {
      stop()
    }
  }
}
