import ArgumentParser
import Foundation
import Visage
import VisageHosting
import VisageImageIO
import VisageReports

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
        visage detect --range all --any-rotation --annotate out/ photos/*.jpg
        visage detect --running-mode video --fps 25 frames/*.png
      """)

  @OptionGroup var io: FrameOptions

  @Option(help: "A detector .tflite or a .task bundle (default: the bundled short-range detector).")
  var model: String?

  @Option(help: .shared("range", of: .detect))
  var range: DetectorRange = TaskOptions.choice("range", of: .detect)

  @Flag(help: .shared("any-rotation", of: .detect))
  var anyRotation = false

  @Option(parsing: .unconditional, help: .shared("min-detection-confidence", of: .detect))
  var minDetectionConfidence: Float = TaskOptions.number("min-detection-confidence", of: .detect)

  @Option(parsing: .unconditional, help: .shared("min-suppression-threshold", of: .detect))
  var minSuppressionThreshold: Float = TaskOptions.number("min-suppression-threshold", of: .detect)

  @Option(parsing: .unconditional, help: .shared("min-face-presence-confidence", of: .detect))
  var minFacePresenceConfidence: Float?

  @Option(help: "image, video or live-stream.")
  var runningMode: CLIRunningMode = .image

  @Flag(help: .shared("tracking", of: .detect))
  var tracking = false

  /// The optional outputs asked for, which each line writes.
  private var outputs: LandmarkerOutputs { LandmarkerOutputs(extras: tracking ? [.faceTrackingIds] : []) }

  @Flag(
    help:
      "For each input, print where a --range all or --any-rotation search's time went, as one JSON line on standard error (image and video mode)."
  )
  var profileSearch = false

  func validate() throws {
    _ = try commandLine { () throws(OptionError) in
      try settings().detectorOptions(models: .placeholders, handler: runningMode.placeholderHandler())
    }
  }

  /// The settings the arguments ask for, from which VisageHosting makes the detector's options.
  func settings(threads: Int? = nil) throws(OptionError) -> TaskSettings {
    var settings = TaskSettings(.detect)
    (settings.model, settings.threadCount, settings.runningMode) = (model, threads ?? io.threads, runningMode.mode)
    try settings.set("range", range.rawValue)
    try settings.set("any-rotation", "\(anyRotation)")
    try settings.set("min-detection-confidence", "\(minDetectionConfidence)")
    try settings.set("min-suppression-threshold", "\(minSuppressionThreshold)")
    if let minFacePresenceConfidence {
      try settings.set("min-face-presence-confidence", "\(minFacePresenceConfidence)")
    }
    try settings.set("tracking", "\(tracking)")
    return settings
  }

  func run() throws {
    let (frames, reporter) = try io.open(timestamped: runningMode != .image)
    let models = try TaskModels.forCommandLine(model: model)
    // One task when faces are numbered from input to input (copies would each have their
    // own), else as `--threads` asks. (Each result carries its own search profile.)
    let copies = tracking ? 0 : io.sideBySide(runningMode, allScales: range == .all, frames: frames)
    // A wider search of a large photo takes seconds: on a terminal, say how far it has got
    // (one task's: copies, which share a batch, show none).
    let progressLine = (range == .all || anyRotation) && copies <= 1 ? SearchProgressLine.forTerminal() : nil
    try runTask(
      runningMode, frames: frames, reporter: reporter, decodeAhead: io.decodeAhead, sideBySide: copies,
      taskName: "detector"
    ) {
      handler, threads in
      try makeTask(.detect) { () throws -> FaceDetector in
        let options = try commandLine { () throws(OptionError) in
          try settings(threads: threads).detectorOptions(models: models, handler: handler)
        }
        let made = try FaceDetector(options: options)
        if let progressLine { made.reportSearchProgress(to: progressLine.update) }
        return made
      }
    } report: { result, frame, image in
      progressLine?.clear()
      try report(result, frame: frame, image: image, frames: frames, reporter: reporter)
      if profileSearch, runningMode != .liveStream, let profile = result.searchProfile {
        FileHandle.standardError.write(Data("\(JSON.searchProfile(profile, source: frame.sourceJSON))\n".utf8))
      }
    } droppedLine: { frame, image, t in
      try resultLine(
        FaceDetectorResult(detections: [], timestampInMilliseconds: t), frame: frame, image: image, timestampMs: t,
        dropped: true, outputs: outputs)
    }
    try reporter.finish()
  }

  private func report(
    _ result: FaceDetectorResult, frame: Frame, image: MPImage, frames: InputFrames, reporter: Reporter
  ) throws {
    if let annotate = io.annotate {
      var canvas = Canvas(image)
      canvas.draw(result)
      reporter.besideResult {
        try writeAnnotation(canvas, to: frames.annotationPath(annotate, for: frame))
      }
    }
    reporter.emit(
      try resultLine(
        result, frame: frame, image: image, timestampMs: runningMode == .image ? nil : result.timestampInMilliseconds,
        outputs: outputs),
      text: "\(frame.label): \(faceCount(result.detections.count))"
        + result.detections.enumerated().map { i, d in
          let b = d.boundingBox
          let turn = d.inPlaneRotation(imageWidth: image.width, imageHeight: image.height) ?? 0
          return String(
            format: "\n  face %d: score %.3f, box x %d y %d w %d h %d, rotation %.0f°", i + 1, d.categories[0].score,
            Int(b.minX), Int(b.minY), Int(b.width), Int(b.height), turn)
            + (d.facePresence.map { String(format: ", presence %.3f", $0) } ?? "")
        }.joined())
  }
}

/// "1 face", "3 faces": how every text summary starts.
func faceCount(_ count: Int) -> String { "\(count) face\(count == 1 ? "" : "s")" }

/// `--range`: which bundled detector, or all of them.
enum DetectorRange: String, ExpressibleByArgument, CaseIterable {
  case short, full, all
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
  /// `visage detect --profile-search`'s line for one input: see docs/cli.md.
  static func searchProfile(_ profile: SearchProfile, source: JSON) -> JSON {
    let times = profile.inference
    // To the microsecond, as bench's figures are: a clock's last digits are noise.
    func seconds(_ value: Double) -> JSON { .double((value * 1e6).rounded() / 1e6) }
    return .object([
      ("source", source),
      (
        "searchProfile",
        .object([
          (
            "phases",
            .array(
              profile.phases.map {
                .object([
                  ("name", .string($0.name)), ("seconds", seconds($0.seconds)), ("inferences", .int($0.inferences)),
                ])
              })
          ),
          ("candidates", .int(profile.candidates)), ("confirmed", .int(profile.confirmed)),
          ("inferences", .int(times.runs)), ("warpSeconds", seconds(times.warpSeconds)),
          ("modelSeconds", seconds(times.modelSeconds)), ("decodeSeconds", seconds(times.decodeSeconds)),
        ])
      ),
    ])
  }
}
