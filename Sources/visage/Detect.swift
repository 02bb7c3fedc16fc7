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

  @Argument(help: "PNG or JPEG images; in video and live-stream mode, the frames in order.")
  var images: [String]

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

  @Option(help: "Frame rate for video and live-stream timestamps: round(i·1000/fps) ms.")
  var fps: Double = 30

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  @Option(help: "Write a PNG with boxes and keypoints drawn (a folder when several inputs).")
  var annotate: String?

  func validate() throws {
    guard fps > 0, fps.isFinite else { throw ValidationError("--fps must be positive") }
    guard (0...1).contains(minDetectionConfidence), (0...1).contains(minSuppressionThreshold) else {
      throw ValidationError("--min-detection-confidence and --min-suppression-threshold must be in 0...1")
    }
    if model != nil && range == .full { throw ValidationError("give either --model or --range full, not both") }
  }

  func run() throws {
    let reporter = Reporter(format: output ?? .automatic, total: images.count)
    let frames = InputFrames(paths: images, fps: fps)
    var options = FaceDetectorOptions(
      baseOptions: BaseOptions(modelAssetPath: try model ?? range.bundledPath()),
      runningMode: runningMode.mode, minDetectionConfidence: minDetectionConfidence,
      minSuppressionThreshold: minSuppressionThreshold)
    do {
      switch runningMode {
      case .image, .video:
        let detector = try FaceDetector(options: options)
        for (i, path) in images.enumerated() {
          do {
            let image = try VisionImage(contentsOfFile: path)
            let result =
              runningMode == .image
              ? try detector.detect(image: image)
              : try detector.detect(videoFrame: image, timestampInMilliseconds: frames.timestamp(i))
            try report(result, image: image, index: i, frames: frames, reporter: reporter)
          } catch {
            reporter.fail(source: path, error: error)
          }
        }
      case .liveStream:
        try runLiveStream(&options, frames: frames, reporter: reporter)
      }
    } catch let error as VisionTaskError {
      throw ValidationError("\(error)")
    }
    try reporter.finish()
  }

  /// Live stream: frames are handed over at the frame rate, in real time, as a camera
  /// would; results arrive on the detector's queue and are printed in input order, with
  /// `"dropped": true` for frames the flow limiter skipped.
  private func runLiveStream(_ options: inout FaceDetectorOptions, frames: InputFrames, reporter: Reporter) throws {
    let results = LiveResults()
    options.liveStreamHandler = { result, timestamp, error in results.store(timestamp, result, error) }
    let detector = try FaceDetector(options: options)
    var decoded: [Int: VisionImage] = [:]
    let start = ContinuousClock.now
    for (i, path) in images.enumerated() {
      let due = start + .milliseconds(frames.timestamp(i))
      let wait = due - .now
      if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18) }
      do {
        let image = try VisionImage(contentsOfFile: path)
        decoded[i] = image
        try detector.detectAsync(image: image, timestampInMilliseconds: frames.timestamp(i))
      } catch {
        results.store(frames.timestamp(i), nil, error)
      }
    }
    detector.waitUntilIdle()
    for (i, path) in images.enumerated() {
      let t = frames.timestamp(i)
      switch results.take(t) {
      case .some((_, let error?)): reporter.fail(source: path, error: error)
      case .some((let result?, nil)):
        do { try report(result, image: decoded[i]!, index: i, frames: frames, reporter: reporter) } catch {
          reporter.fail(source: path, error: error)
        }
      default:
        let image = decoded[i]
        reporter.emit(
          .object([
            ("source", .string(path)), ("width", .int(image?.width ?? 0)), ("height", .int(image?.height ?? 0)),
            ("timestampMs", .int(t)), ("dropped", .bool(true)), ("detections", .array([])),
          ]), text: "\(path): dropped (the detector was busy)")
      }
    }
  }

  private func report(_ result: FaceDetectorResult, image: VisionImage, index: Int, frames: InputFrames, reporter: Reporter) throws {
    let source = frames.paths[index]
    if let annotate {
      var canvas = Canvas(image)
      canvas.draw(result)
      let path = try frames.annotationPath(annotate, index: index)
      let png = try PNG.encode(canvas.image())
      guard FileManager.default.createFile(atPath: path, contents: Data(png)) else {
        throw ValidationError("cannot write the annotated image '\(path)'")
      }
    }
    var fields: [(String, JSON)] = [("source", .string(source)), ("width", .int(image.width)), ("height", .int(image.height))]
    if runningMode != .image { fields.append(("timestampMs", .int(result.timestampInMilliseconds))) }
    fields.append(("detections", .array(result.detections.map(JSON.detection))))
    let summary = result.detections.enumerated().map { i, d in
      let b = d.boundingBox
      return String(format: "\n  face %d: score %.3f, box x %d y %d w %d h %d", i + 1, d.categories[0].score, Int(b.minX), Int(b.minY), Int(b.width), Int(b.height))
    }.joined()
    reporter.emit(.object(fields), text: "\(source): \(result.detections.count) face\(result.detections.count == 1 ? "" : "s")\(summary)")
  }
}

/// Live-stream results keyed by timestamp, filled on the detector's queue.
private final class LiveResults: @unchecked Sendable {
  private var byTimestamp: [Int: (FaceDetectorResult?, (any Error)?)] = [:]
  private let lock = NSLock()
  func store(_ t: Int, _ result: FaceDetectorResult?, _ error: (any Error)?) { lock.withLock { byTimestamp[t] = (result, error) } }
  func take(_ t: Int) -> (FaceDetectorResult?, (any Error)?)? { lock.withLock { byTimestamp.removeValue(forKey: t) } }
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
