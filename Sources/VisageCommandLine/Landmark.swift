import ArgumentParser
import Foundation
import Visage
import VisageHosting
import VisageReports
import VisageTFLite

struct Landmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "478 face landmarks per face, with blendshapes and transformation matrices (MediaPipe's Face Landmarker).",
    discussion: """
      One JSON object per image or frame with --output json (JSON Lines, in input order). \
      In video and live-stream mode the inputs are the frames of one stream, and faces are \
      followed from frame to frame. A file that cannot be read gets an {"source", "error"} \
      line and the batch goes on; the exit status is then 1.

      Examples:
        visage landmark Tests/Fixtures/images/astronaut.png --annotate out/astronaut-mesh.png
        visage landmark --blendshapes --transformation-matrices --output json photo.jpg
        visage landmark --running-mode video --num-faces 2 frames/*.png
        ffmpeg -i clip.mp4 -f yuv4mpegpipe - | visage landmark --running-mode video -
        find photos -name '*.jpg' | visage landmark --paths-from - --output json > faces.jsonl
      """)

  @OptionGroup var io: FrameOptions

  @Option(help: "A face_landmarker .task bundle (default: the bundled one).")
  var model: String?

  @Option(help: .shared("detector-range", of: .landmark))
  var detectorRange: DetectorRange = TaskOptions.choice("detector-range", of: .landmark)

  @Flag(help: .shared("any-rotation", of: .landmark))
  var anyRotation = false

  @Option(parsing: .unconditional, help: .shared("num-faces", of: .landmark))
  var numFaces: Int = TaskOptions.number("num-faces", of: .landmark)

  @Option(parsing: .unconditional, help: .shared("min-face-detection-confidence", of: .landmark))
  var minFaceDetectionConfidence: Float = TaskOptions.number("min-face-detection-confidence", of: .landmark)

  @Option(parsing: .unconditional, help: .shared("min-face-presence-confidence", of: .landmark))
  var minFacePresenceConfidence: Float = TaskOptions.number("min-face-presence-confidence", of: .landmark)

  @Option(parsing: .unconditional, help: .shared("min-tracking-confidence", of: .landmark))
  var minTrackingConfidence: Float = TaskOptions.number("min-tracking-confidence", of: .landmark)

  @Flag(help: .shared("blendshapes", of: .landmark))
  var blendshapes = false

  @Flag(help: .shared("transformation-matrices", of: .landmark))
  var transformationMatrices = false

  @Flag(help: .shared("head-pose", of: .landmark))
  var headPose = false

  @Flag(help: .shared("metric-mesh", of: .landmark))
  var metricMesh = false

  @Flag(help: .shared("iris-distance", of: .landmark))
  var irisDistance = false

  @Flag(help: .shared("tracking", of: .landmark))
  var tracking = false

  @Flag(help: .shared("scores", of: .landmark))
  var scores = false

  @Option(
    help: ArgumentHelp(
      "Write each face cut out upright and centred (ArcFace's five-point template) as a PNG into this folder.",
      valueName: "folder"))
  var crops: String?

  @Option(parsing: .unconditional, help: "The crops' side in pixels.")
  var cropSize = 112

  @Option(
    parsing: .unconditional,
    help:
      "Room around the crops' template on each side, as a fraction of the template's size (0: as recognition models take it)."
  )
  var cropMargin = 0.0

  // Unconditional: a face at the left or top edge has a negative x or y (`-30,77,104,104`).
  @Option(
    name: .customLong("region"), parsing: .unconditionalSingleValue,
    help: ArgumentHelp(
      "A face's box in pixels and its rotation in degrees clockwise (as detect's boundingBox and rotation): landmarks for it with no detection; repeat for more faces (image mode).",
      valueName: "x,y,w,h[,degrees]"))
  var regions: [FaceRegionArgument] = []

  @Option(parsing: .unconditional, help: .shared("camera-fov", of: .landmark))
  var cameraFov: Float = TaskOptions.number("camera-fov", of: .landmark)

  @Flag(help: .shared("camera-from-exif", of: .landmark))
  var cameraFromExif = false

  /// The optional outputs asked for, which each line writes.
  private var outputs: LandmarkerOutputs {
    LandmarkerOutputs((try? settings().landmarkerOptions(models: .placeholders)) ?? FaceLandmarkerOptions())
  }

  @Option(help: .shared("smoothing", of: .landmark))
  var smoothing: SmoothingChoice = TaskOptions.choice("smoothing", of: .landmark)

  @Option(
    parsing: .unconditional,
    help: "The smoothing filter's cutoff at rest in hertz (MediaPipe's 0.05): lower smooths a still face more.")
  var smoothingMinCutoff = Double(LandmarkFilterParameters.mediaPipe.minCutoff)

  @Option(
    parsing: .unconditional,
    help: "The smoothing filter's beta (MediaPipe's 80): higher follows a moving face with less lag.")
  var smoothingBeta = Double(LandmarkFilterParameters.mediaPipe.beta)

  @Option(help: "image, video or live-stream.")
  var runningMode: CLIRunningMode = .image

  func validate() throws {
    guard (1...4096).contains(cropSize) else {
      throw ValidationError("--crop-size must be in 1...4096, got \(cropSize)")
    }
    guard cropMargin >= 0, cropMargin < 10 else {
      throw ValidationError("--crop-margin must be at least 0 and below 10, got \(cropMargin)")
    }
    // Checked as typed, before they become Floats (1e-300 would become 0, 1e308 infinity).
    guard smoothingMinCutoff > 0, Float(smoothingMinCutoff) > 0, Float(smoothingMinCutoff).isFinite else {
      throw ValidationError(
        "--smoothing-min-cutoff must be above 0 hertz and within a Float's range, got \(smoothingMinCutoff)")
    }
    guard smoothingBeta >= 0, Float(smoothingBeta).isFinite else {
      throw ValidationError("--smoothing-beta must be at least 0 and within a Float's range, got \(smoothingBeta)")
    }
    if !regions.isEmpty && runningMode != .image {
      throw ValidationError("--region needs --running-mode image: a region belongs to one picture")
    }
    _ = try commandLine { () throws(OptionError) in
      try settings().landmarkerOptions(models: .placeholders, handler: runningMode.placeholderHandler())
    }
  }

  /// The settings the arguments ask for, from which VisageHosting makes the landmarker's options.
  func settings(threads: Int? = nil) throws(OptionError) -> TaskSettings {
    var settings = TaskSettings(.landmark)
    (settings.model, settings.threadCount, settings.runningMode) = (model, threads ?? io.threads, runningMode.mode)
    settings.landmarkFilter.minCutoff = Float(smoothingMinCutoff)
    settings.landmarkFilter.beta = Float(smoothingBeta)
    let values = [
      ("detector-range", detectorRange.rawValue), ("any-rotation", "\(anyRotation)"), ("num-faces", "\(numFaces)"),
      ("min-face-detection-confidence", "\(minFaceDetectionConfidence)"),
      ("min-face-presence-confidence", "\(minFacePresenceConfidence)"),
      ("min-tracking-confidence", "\(minTrackingConfidence)"), ("blendshapes", "\(blendshapes)"),
      ("transformation-matrices", "\(transformationMatrices)"), ("head-pose", "\(headPose)"),
      ("metric-mesh", "\(metricMesh)"), ("iris-distance", "\(irisDistance)"), ("tracking", "\(tracking)"),
      ("scores", "\(scores)"), ("camera-fov", "\(cameraFov)"), ("camera-from-exif", "\(cameraFromExif)"),
      ("smoothing", smoothing.rawValue),
    ]
    for (name, value) in values { try settings.set(name, value) }
    return settings
  }

  func run() throws {
    let (frames, reporter) = try io.open(timestamped: runningMode != .image)
    let models = try TaskModels.forCommandLine(model: model)
    // With --region, each image's faces are read in the given regions.
    let faceRegions = regions.map(\.value)
    var still: (@Sendable (FaceLandmarker, MPImage) throws -> FaceLandmarkerResult)?
    if !faceRegions.isEmpty {
      still = { (task: FaceLandmarker, image: MPImage) throws -> FaceLandmarkerResult in
        try task.detect(image: image, faceRegions: faceRegions)
      }
    }
    try runTask(
      runningMode, frames: frames, reporter: reporter, decodeAhead: io.decodeAhead,
      // Numbered faces need one task, which sees every input in order.
      sideBySide: tracking ? 0 : io.sideBySide(runningMode, allScales: detectorRange == .all, frames: frames),
      taskName: "landmarker",
      still: still
    ) {
      handler, threads in
      try makeTask(.landmark) {
        let options = try commandLine { () throws(OptionError) in
          try settings(threads: threads).landmarkerOptions(models: models, handler: handler)
        }
        return try FaceLandmarker(options: options)
      }
    } report: { result, frame, image in
      try report(result, frame: frame, image: image, frames: frames, reporter: reporter)
    } droppedLine: { frame, image, t in
      try resultLine(
        FaceLandmarkerResult(
          faceLandmarks: [], faceBlendshapes: [], facialTransformationMatrixes: [], timestampInMilliseconds: t),
        frame: frame, image: image, timestampMs: t, dropped: true, outputs: outputs)
    }
    try reporter.finish()
  }

  private func report(
    _ result: FaceLandmarkerResult, frame: Frame, image: MPImage, frames: InputFrames, reporter: Reporter
  ) throws {
    if let annotate = io.annotate {
      var canvas = Canvas(image)
      canvas.draw(result)
      reporter.besideResult {
        try writeAnnotation(canvas, to: frames.annotationPath(annotate, for: frame))
      }
    }
    var cropFiles: [String] = []
    if let crops {
      // Named as --annotate names a batch's pictures, with the face's number.
      let base = frames.annotationPath(crops, for: frame, alwaysInFolder: true).dropLast(4)
      for (i, face) in result.faceLandmarks.enumerated() {
        let crop = try image.alignedFaceCrop(
          landmarks: face, options: FaceCropOptions(size: cropSize, margin: cropMargin))
        cropFiles.append(base + "-face\(i + 1).png")
        reporter.besideResult { try writePNG(crop, to: cropFiles[i]) }
      }
    }
    var line = try resultLine(
      result, frame: frame, image: image, timestampMs: runningMode == .image ? nil : result.timestampInMilliseconds,
      outputs: outputs)
    // Each face's crop file, after the result's own keys, in the faces' order.
    if crops != nil, case .object(var fields) = line {
      fields.append(("faceCrops", .array(cropFiles.map { BytePath($0).json })))
      line = .object(fields)
    }
    reporter.emit(line, text: "\(frame.label): " + summary(result, crops: cropFiles))
  }

  /// "1 face" and, per face, its landmarks' normalized bounding box, then what the flags asked
  /// for: its tracking ID, scores, head pose, iris distances, strongest blendshapes and crop.
  private func summary(_ result: FaceLandmarkerResult, crops: [String]) -> String {
    var text = faceCount(result.faceLandmarks.count)
    for (i, face) in result.faceLandmarks.enumerated() {
      let xs = face.map(\.x)
      let ys = face.map(\.y)
      text += String(
        format: "\n  face %d: landmarks x %.3f...%.3f y %.3f...%.3f", i + 1, xs.min() ?? 0, xs.max() ?? 0,
        ys.min() ?? 0, ys.max() ?? 0)
      if i < result.faceTrackingIds.count { text += ", tracking ID \(result.faceTrackingIds[i])" }
      if i < result.faceScores.count {
        let scores = result.faceScores[i]
        text += String(format: ", presence %.2f", scores.presence)
        if let detection = scores.detection { text += String(format: ", detection %.2f", detection) }
      }
      if i < result.faceHeadPoses.count, let pose = result.faceHeadPoses[i] {
        text += String(format: ", angles X %.1f Y %.1f Z %.1f", pose.x, pose.y, pose.z)
      }
      if i < result.faceIrisDistances.count, let eyes = result.faceIrisDistances[i] {
        text += String(format: ", eye distance left %.0f mm right %.0f mm", eyes.left, eyes.right)
      }
      if i < result.faceBlendshapes.count {
        let top = result.faceBlendshapes[i].categories.filter { $0.index != 0 }.sorted { $0.score > $1.score }.prefix(3)
        text +=
          ", " + top.map { "\($0.categoryName ?? "?") " + String(format: "%.2f", $0.score) }.joined(separator: ", ")
      }
      if i < crops.count { text += ", crop " + Reporter.visible(BytePath(crops[i]).description) }
    }
    return text
  }
}

/// `--smoothing`: which faces get landmark smoothing in video and live-stream mode.
enum SmoothingChoice: String, ExpressibleByArgument, CaseIterable {
  case everyFace = "every-face"
  case mediapipe
  case off
}

/// `--region x,y,w,h[,degrees]`: a face's box in pixels and its rotation.
struct FaceRegionArgument: ExpressibleByArgument, Sendable {
  let value: FaceRegion

  init?(argument: String) {
    let numbers = argument.split(separator: ",", omittingEmptySubsequences: false).map {
      Double($0.trimmingCharacters(in: .whitespaces))
    }
    guard numbers.count == 4 || numbers.count == 5, numbers.allSatisfy({ $0?.isFinite == true }) else { return nil }
    let n = numbers.map { $0! }
    guard n[2] > 0, n[3] > 0 else { return nil }
    value = FaceRegion(
      boundingBox: CGRect(x: n[0], y: n[1], width: n[2], height: n[3]), rotationDegrees: n.count == 5 ? n[4] : 0)
  }
}
