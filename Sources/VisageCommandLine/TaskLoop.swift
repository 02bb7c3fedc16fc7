import Visage
import VisageHosting

/// What `detect` and `landmark` call on their task: `FaceDetector` and `FaceLandmarker`
/// name these methods alike, as MediaPipe does.
protocol FrameTask: AnyObject, Sendable {
  associatedtype Result
  func detect(image: MPImage) throws -> Result
  func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> Result
  func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws
  func waitUntilIdle()
}

extension FaceDetector: FrameTask {}
extension FaceLandmarker: FrameTask {}

/// Runs a task over every input in the running mode asked for and reports each result in
/// input order. `make` builds the task, given the live-stream handler to install (nil in
/// image and video mode) and the threads it may use (nil: `--threads`). In live-stream mode a
/// dropped frame gets `droppedLine`'s line (`"dropped": true`, an empty result). In image mode
/// with `sideBySide` above 1, that many one-thread copies of the task take the inputs in turn
/// (`processBatch`). `still`, when given, replaces `detect(image:)` in image mode.
func runTask<Task: FrameTask>(
  _ mode: CLIRunningMode, frames: InputFrames, reporter: Reporter, decodeAhead: Int, sideBySide: Int = 0,
  taskName: String, still: (@Sendable (Task, MPImage) throws -> Task.Result)? = nil,
  make: (_ liveStreamHandler: (@Sendable (Task.Result?, Int, (any Error)?) -> Void)?, _ threads: Int?) throws -> Task,
  report: @escaping (Task.Result, Frame, MPImage) throws -> Void,
  droppedLine: @escaping (Frame, MPImage, Int) throws -> JSON
) throws {
  switch mode {
  case .image, .video:
    try processBatch(
      frames, reporter: reporter, decodeAhead: decodeAhead, copies: sideBySide, make: { try make(nil, $0) },
      process: { task, image, timestamp in
        mode == .image
          ? try still?(task, image) ?? task.detect(image: image)
          : try task.detect(videoFrame: image, timestampInMilliseconds: timestamp)
      }, report: report)
  case .liveStream:
    let live = LiveStreamOutput<Task.Result>(reporter: reporter, taskName: taskName, droppedLine: droppedLine) {
      frame, image, result in try report(result, frame, image)
    }
    let task = try make({ live.deliver($0, timestampMs: $1, error: $2) }, nil)
    live.run(
      frames, submit: { try task.detectAsync(image: $0, timestampInMilliseconds: $1) },
      waitUntilIdle: task.waitUntilIdle)
  }
}

/// Image and video mode: `copies` one-thread copies of the task taking the inputs in turn
/// (image mode only) when above 1, else one task, made with `--threads` (`make(nil)`), over
/// every input in order. `process` runs a task on one input, given its timestamp (video mode).
///
/// Copies rather than one task whose layers are split over the threads: a photo is mostly
/// decoding, which one thread does alone, and splitting small layers costs a hand-over at
/// each. On 96 12 MP JPEGs two copies ran 1.86-1.91× as fast as one thread, the split layers
/// 1.76-1.83× (docs/speed.md). Every copy runs the same kernels on one thread, so results
/// are those of one thread. Every copy is made before any input is read, so a task that
/// cannot be made stops the command as with one thread.
func processBatch<Task, Output>(
  _ frames: InputFrames, reporter: Reporter, decodeAhead: Int, copies: Int, make: (_ threads: Int?) throws -> Task,
  process: @escaping @Sendable (Task, MPImage, Int) throws -> Output, report: (Output, Frame, MPImage) throws -> Void
) throws {
  guard copies > 1 else {
    let task = try make(nil)
    return processEach(frames, reporter: reporter, decodeAhead: decodeAhead) {
      try process(task, $0, $1)
    } report: {
      try report($0, $1, $2)
    }
  }
  let tasks = try (0..<copies).map { _ in try make(1) }
  // Each copy decodes and runs its input; whichever finishes the next input in order
  // reports it. At most copies + 1 inputs are decoded and not yet reported.
  let pool = WorkPool(workers: tasks, queueDepth: copies + 1, name: "visage.task-copy")
  defer { pool.shutdown() }
  pool.forEachInOrder(next: frames.nextJob, window: copies + 1) { task, job in
    let frame = job()
    return (
      frame,
      Result { () throws -> (Output, MPImage) in
        let image = try frame.image.get()
        return (try process(task, image, 0), image)
      }
    )
  } deliver: { (frame: Frame, outcome: Result<(Output, MPImage), any Error>) in
    do {
      let (output, image) = try outcome.get()
      try report(output, frame, image)
    } catch {
      reporter.fail(frame, error: error)
    }
  }
}

/// Image and video mode on one task: runs `process` on each frame in order, with the frame's
/// timestamp, and reports the result; a frame that cannot be decoded or processed gets an
/// error line and the loop goes on. With `decodeAhead` above 0, that many threads decode the
/// next inputs meanwhile (a 12 MP JPEG decodes in about 17 ms, and one task's threads split
/// layers, not images); the frames are processed and reported in order on whichever of them
/// decoded the next one, and at most `decodeAhead` decoded inputs wait besides the one being
/// processed.
func processEach<Result>(
  _ frames: InputFrames, reporter: Reporter, decodeAhead: Int, process: (MPImage, Int) throws -> Result,
  report: (Result, Frame, MPImage) throws -> Void
) {
  func processAndReport(_ frame: Frame) {
    do {
      let image = try frame.image.get()
      try report(process(image, frames.timestamp(frame.index)), frame, image)
    } catch {
      reporter.fail(frame, error: error)
    }
  }
  guard decodeAhead > 0 else {
    while let frame = frames.next() { processAndReport(frame) }
    return
  }
  let decoders = WorkPool(
    workers: Array(repeating: (), count: decodeAhead), queueDepth: decodeAhead + 1,
    name: "visage.decode-ahead")
  defer { decoders.shutdown() }
  decoders.forEachInOrder(
    next: frames.nextJob, window: decodeAhead + 1, work: { _, job in job() }, deliver: processAndReport)
}
