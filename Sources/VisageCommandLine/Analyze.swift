import ArgumentParser
import Foundation
import Visage
import VisageHosting
import VisageImageIO
import VisageReports

struct Analyze: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "ML Kit-style face analysis: frame, head angles, landmarks, contours, smile and eyes, tracking IDs.",
    discussion: """
      One JSON object per image or frame with --output json (JSON Lines, in input order), \
      positions in pixels. Left and right are the subject's. Euler angles in degrees: \
      X > 0 facing up, Y > 0 turned toward the camera's right, Z > 0 rotated counter-clockwise. \
      A file that cannot be read gets an {"source", "error"} line and the batch goes on; \
      the exit status is then 1.

      Examples:
        visage analyze --landmarks --classification Tests/Fixtures/images/astronaut.png
        visage analyze --contours --annotate out/astronaut.png Tests/Fixtures/images/astronaut.png
        visage analyze --performance accurate --min-face-size 0.05 --output json photos/*.jpg
        visage analyze --running-mode video --tracking --fps 25 frames/*.png
      """)

  @OptionGroup var io: FrameOptions

  @Option(help: "A face_landmarker .task bundle (default: the bundled one).")
  var model: String?

  @Option(help: .shared("performance", of: .analyze))
  var performance: FaceAnalyzerOptions.PerformanceMode = TaskOptions.choice("performance", of: .analyze)

  @Flag(help: .shared("any-rotation", of: .analyze))
  var anyRotation = false

  @Flag(help: .shared("landmarks", of: .analyze))
  var landmarks = false

  @Flag(help: .shared("contours", of: .analyze))
  var contours = false

  @Flag(help: .shared("classification", of: .analyze))
  var classification = false

  @Option(parsing: .unconditional, help: .shared("min-face-size", of: .analyze))
  var minFaceSize: Float = TaskOptions.number("min-face-size", of: .analyze)

  @Flag(help: .shared("tracking", of: .analyze))
  var tracking = false

  @Option(parsing: .unconditional, help: .shared("max-faces", of: .analyze))
  var maxFaces: Int = TaskOptions.number("max-faces", of: .analyze)

  @Option(help: "image or video.")
  var runningMode: AnalyzeRunningMode = .image

  func validate() throws {
    _ = try commandLine { () throws(OptionError) in try settings().analyzerOptions(models: .placeholders) }
  }

  /// The settings the arguments ask for, from which VisageHosting makes the analyzer's options.
  func settings(threads: Int? = nil) throws(OptionError) -> TaskSettings {
    var settings = TaskSettings(.analyze)
    (settings.model, settings.threadCount) = (model, threads ?? io.threads)
    settings.runningMode = runningMode == .image ? .image : .video
    let values = [
      ("performance", performance.rawValue), ("any-rotation", "\(anyRotation)"), ("landmarks", "\(landmarks)"),
      ("contours", "\(contours)"), ("classification", "\(classification)"), ("min-face-size", "\(minFaceSize)"),
      ("tracking", "\(tracking)"), ("max-faces", "\(maxFaces)"),
    ]
    for (name, value) in values { try settings.set(name, value) }
    return settings
  }

  func run() throws {
    let (frames, reporter) = try io.open(timestamped: runningMode == .video)
    let models = try TaskModels.forCommandLine(model: model)
    // Tracking numbers faces from one image to the next, so it needs them in order on one task.
    let mode: CLIRunningMode = runningMode == .image ? .image : .video
    let copies = tracking ? 0 : io.sideBySide(mode, allScales: performance == .accurate, frames: frames)
    try processBatch(
      frames, reporter: reporter, decodeAhead: io.decodeAhead, copies: copies,
      make: { threads in
        try makeTask(.analyze) {
          let options = try commandLine { () throws(OptionError) in
            try settings(threads: threads).analyzerOptions(models: models)
          }
          return try FaceAnalyzer(options: options)
        }
      },
      process: { analyzer, image, timestamp in
        mode == .image
          ? try analyzer.analyze(image: image)
          : try analyzer.analyze(videoFrame: image, timestampInMilliseconds: timestamp)
      },
      report: { faces, frame, image in
        try report(faces, frame: frame, image: image, frames: frames, reporter: reporter)
      })
    try reporter.finish()
  }

  private func report(_ faces: [Face], frame: Frame, image: MPImage, frames: InputFrames, reporter: Reporter) throws {
    if let annotate = io.annotate {
      var canvas = Canvas(image)
      canvas.draw(faces)
      reporter.besideResult {
        try writeAnnotation(canvas, to: frames.annotationPath(annotate, for: frame))
      }
    }
    reporter.emit(
      try resultLine(
        FacesResult(faces: faces), frame: frame, image: image,
        timestampMs: runningMode == .video ? try frames.timestamp(frame.index) : nil),
      text: "\(frame.label): \(faceCount(faces.count))"
        + faces.enumerated().map { i, face in Self.summary(face, number: i + 1) }.joined())
  }

  private static func summary(_ face: Face, number: Int) -> String {
    let f = face.frame
    var text = String(
      format: "\n  face %d: frame x %.0f y %.0f w %.0f h %.0f, angles X %.1f Y %.1f Z %.1f", number, f.minX, f.minY,
      f.width, f.height,
      face.headEulerAngleX, face.headEulerAngleY, face.headEulerAngleZ)
    if let smiling = face.smilingProbability, let left = face.leftEyeOpenProbability,
      let right = face.rightEyeOpenProbability
    {
      text += String(format: ", smiling %.2f, eyes open left %.2f right %.2f", smiling, left, right)
    }
    if let id = face.trackingID { text += ", tracking ID \(id)" }
    return text
  }
}

/// `--running-mode` for `analyze`: the analyzer has no live-stream mode.
enum AnalyzeRunningMode: String, ExpressibleByArgument, CaseIterable {
  case image, video
}

extension FaceAnalyzerOptions.PerformanceMode: ExpressibleByArgument {}
