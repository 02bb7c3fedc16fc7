import Visage

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
/// dropped frame gets a `"dropped": true` line with an empty `resultsKey` array. In image mode
/// with `sideBySide` above 1, that many one-thread copies of the task take the inputs in turn
/// (`processSideBySide`).
func runTask<Task: FrameTask>(
  _ mode: CLIRunningMode, frames: InputFrames, reporter: Reporter, decodeAhead: Int, sideBySide: Int = 0,
  resultsKey: String, taskName: String,
  make: (_ liveStreamHandler: (@Sendable (Task.Result?, Int, (any Error)?) -> Void)?, _ threads: Int?) throws -> Task,
  report: @escaping (Task.Result, Frame, MPImage) throws -> Void
) throws {
  switch mode {
  case .image, .video:
    try processBatch(
      frames, reporter: reporter, decodeAhead: decodeAhead, copies: sideBySide, make: { try make(nil, $0) },
      process: { task, image, timestamp in
        mode == .image
          ? try task.detect(image: image) : try task.detect(videoFrame: image, timestampInMilliseconds: timestamp)
      }, report: report)
  case .liveStream:
    let live = LiveStreamOutput<Task.Result>(
      frames: frames, reporter: reporter, resultsKey: resultsKey, taskName: taskName
    ) {
      frame, image, result in try report(result, frame, image)
    }
    let task = try make({ live.deliver($0, timestampMs: $1, error: $2) }, nil)
    live.run(
      frames, submit: { try task.detectAsync(image: $0, timestampInMilliseconds: $1) },
      waitUntilIdle: task.waitUntilIdle)
  }
}

/// Image and video mode: `copies` one-thread copies of the task taking the inputs in turn
/// (`processSideBySide`; image mode only) when above 1, else one task, made with `--threads`
/// (`make(nil)`), over every input in order (`processEach`). `process` runs a task on one
/// input, given its timestamp (video mode).
func processBatch<Task, Output>(
  _ frames: InputFrames, reporter: Reporter, decodeAhead: Int, copies: Int, make: (_ threads: Int?) throws -> Task,
  process: @escaping @Sendable (Task, MPImage, Int) throws -> Output, report: (Output, Frame, MPImage) throws -> Void
) throws {
  if copies > 1 {
    try processSideBySide(
      frames, reporter: reporter, copies: copies, make: { try make(1) }, process: { try process($0, $1, 0) },
      report: report)
  } else {
    let task = try make(nil)
    processEach(frames, reporter: reporter, decodeAhead: decodeAhead) {
      try process(task, $0, $1)
    } report: {
      try report($0, $1, $2)
    }
  }
}

/// Image and video mode: runs `process` on each frame in order, with the frame's timestamp,
/// and reports the result; a frame that cannot be decoded or processed gets an error line
/// and the loop goes on. With `decodeAhead` above 0 that many later inputs decode on other
/// threads meanwhile (`DecodeAhead`).
func processEach<Result>(
  _ frames: InputFrames, reporter: Reporter, decodeAhead: Int, process: (MPImage, Int) throws -> Result,
  report: (Result, Frame, MPImage) throws -> Void
) {
  let inputs = DecodeAhead(frames, depth: decodeAhead)
  while let frame = inputs.next() {
    do {
      let image = try frame.image.get()
      try report(process(image, frames.timestamp(frame.index)), frame, image)
    } catch {
      reporter.fail(source: frame.source, error: error)
    }
  }
}
