import ArgumentParser
import Foundation
import Visage
import VisageImageIO

struct Detect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Find faces: boxes, scores and six keypoints per face (MediaPipe's Face Detector).",
    discussion: """
      One JSON object per image with --output json (JSON Lines, in input order). \
      A file that cannot be read gets an {"source", "error"} line and the batch goes on; \
      the exit status is then 1.

      Examples:
        visage detect Tests/Fixtures/images/astronaut.png --annotate out/astronaut.png
        visage detect --range full --output json photos/*.jpg
        visage detect --running-mode video --fps 25 frames/*.png
      """)

  @Argument(help: "PNG or JPEG images; in video and live-stream mode, the frames in order. A single .y4m file, or - for YUV4MPEG2 on standard input, is a stream of frames.")
  var images: [String] = []

  @Option(help: "Read image paths one per line from this file, or - for standard input.")
  var pathsFrom: String?

  @Option(help: "A detector .tflite or a .task bundle (default: the bundled short-range detector).")
  var model: String?

  @Option(help: "short (128×128, faces within ~2 m) or full (192×192, faces up to ~5 m).")
  var range: DetectorRange = .short

  @Option(help: "Lowest score reported, 0...1.")
  var minDetectionConfidence: Float = 0.5

  @Option(help: "IoU above which overlapping boxes merge, 0...1.")
  var minSuppressionThreshold: Float = 0.3

  @Option(help: "image, video or live-stream.")
  var runningMode: CLIRunningMode = .image

  @Option(help: "Frame rate for video and live-stream timestamps, round(i·1000/fps) ms (default: the stream's own rate for YUV4MPEG2, else 30).")
  var fps: Double?

  @Option(help: "Threads the models' larger layers are shared over, 1...64 (results are the same for any count).")
  var threads = 1

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  @Option(help: "Write a PNG with boxes and keypoints drawn (a folder when several inputs).")
  var annotate: String?

  func validate() throws {
    guard (1...64).contains(threads) else { throw ValidationError("--threads must be in 1...64") }
    try validateFPS(fps)
    guard (0...1).contains(minDetectionConfidence), (0...1).contains(minSuppressionThreshold) else {
      throw ValidationError("--min-detection-confidence and --min-suppression-threshold must be in 0...1")
    }
    if model != nil && range == .full { throw ValidationError("give either --model or --range full, not both") }
  }

  func run() throws {
    let frames = try InputFrames(arguments: images, pathsFrom: pathsFrom, fps: fps)
    let reporter = Reporter(format: output ?? .automatic, total: frames.count)
    var options = FaceDetectorOptions(
      baseOptions: BaseOptions(modelAssetPath: try model ?? range.bundledPath(), threadCount: threads),
      runningMode: runningMode.mode, minDetectionConfidence: minDetectionConfidence,
      minSuppressionThreshold: minSuppressionThreshold)
    do {
      switch runningMode {
      case .image, .video:
        let detector = try FaceDetector(options: options)
        while let frame = frames.next() {
          do {
            let image = try frame.image.get()
            let result =
              runningMode == .image
              ? try detector.detect(image: image)
              : try detector.detect(videoFrame: image, timestampInMilliseconds: frames.timestamp(frame.index))
            try report(result, frame: frame, image: image, frames: frames, reporter: reporter)
          } catch {
            reporter.fail(source: frame.source, error: error)
          }
        }
      case .liveStream:
        let live = LiveStreamOutput<FaceDetectorResult>(
          frames: frames, reporter: reporter,
          report: { frame, image, result in try report(result, frame: frame, image: image, frames: frames, reporter: reporter) },
          dropped: { frame, image in
            reporter.emit(
              .object(frameFields(frame, image, timestampMs: frames.timestamp(frame.index)) + [("dropped", .bool(true)), ("detections", .array([]))]),
              text: "\(frame.source): dropped (the detector was busy)")
          })
        options.liveStreamHandler = { result, timestamp, error in live.deliver(result, timestampMs: timestamp, error: error) }
        let detector = try FaceDetector(options: options)
        live.run(frames, submit: { try detector.detectAsync(image: $0, timestampInMilliseconds: $1) }, waitUntilIdle: detector.waitUntilIdle)
      }
    } catch let error as VisionTaskError {
      throw ValidationError("\(error)")
    }
    try reporter.finish()
  }

  private func report(_ result: FaceDetectorResult, frame: Frame, image: VisionImage, frames: InputFrames, reporter: Reporter) throws {
    if let annotate {
      var canvas = Canvas(image)
      canvas.draw(result)
      try writeAnnotation(canvas, to: frames.annotationPath(annotate, for: frame))
    }
    let fields = frameFields(frame, image, timestampMs: runningMode == .image ? nil : result.timestampInMilliseconds)
    let summary = result.detections.enumerated().map { i, d in
      let b = d.boundingBox
      return String(format: "\n  face %d: score %.3f, box x %d y %d w %d h %d", i + 1, d.categories[0].score, Int(b.minX), Int(b.minY), Int(b.width), Int(b.height))
    }.joined()
    reporter.emit(
      .object(fields + [("detections", .array(result.detections.map(JSON.detection)))]),
      text: "\(frame.source): \(result.detections.count) face\(result.detections.count == 1 ? "" : "s")\(summary)")
  }
}

/// The fields every result line starts with: source, width, height and, in video and
/// live-stream mode, the timestamp.
func frameFields(_ frame: Frame, _ image: VisionImage, timestampMs: Int?) -> [(String, JSON)] {
  var fields: [(String, JSON)] = [("source", .string(frame.source)), ("width", .int(image.width)), ("height", .int(image.height))]
  if let timestampMs { fields.append(("timestampMs", .int(timestampMs))) }
  return fields
}

/// `--fps` must be a positive, finite number when given.
func validateFPS(_ fps: Double?) throws {
  if let fps, !(fps > 0 && fps.isFinite) { throw ValidationError("--fps must be positive") }
}

/// `--range`: which bundled detector.
enum DetectorRange: String, ExpressibleByArgument, CaseIterable {
  case short, full

  func bundledPath() throws -> String {
    try BundledWeights.model(named: self == .short ? "face_detector" : "face_detection_full_range")
  }
}

/// `--running-mode`, spelled as the contract spells it.
enum CLIRunningMode: String, ExpressibleByArgument, CaseIterable {
  case image, video
  case liveStream = "live-stream"

  var mode: RunningMode {
    switch self {
    case .image: .image
    case .video: .video
    case .liveStream: .liveStream
    }
  }
}

extension JSON {
  /// A detection as the contract writes it: integer pixel box, categories, keypoints.
  static func detection(_ d: Detection) -> JSON {
    let b = d.boundingBox
    return .object([
      ("boundingBox", .object([("originX", .int(Int(b.minX))), ("originY", .int(Int(b.minY))), ("width", .int(Int(b.width))), ("height", .int(Int(b.height)))])),
      ("categories", .array(d.categories.map { c in
        .object([("index", .int(c.index)), ("score", .float(c.score)), ("categoryName", c.categoryName.map(JSON.string) ?? .null)])
      })),
      ("keypoints", .array((d.keypoints ?? []).map { k in
        .object([("x", .float(Float(k.location.x))), ("y", .float(Float(k.location.y))), ("label", k.label.map(JSON.string) ?? .null)])
      })),
    ])
  }
}
