import ArgumentParser
import Foundation
import Visage

struct Landmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "478 face landmarks per face, with blendshapes and transformation matrices (MediaPipe's Face Landmarker).",
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

  @Argument(help: "PNG or JPEG images; in video and live-stream mode, the frames in order. A single .y4m file, or - for YUV4MPEG2 on standard input, is a stream of frames.")
  var images: [String] = []

  @Option(help: "Read image paths one per line from this file, or - for standard input.")
  var pathsFrom: String?

  @Option(help: "A face_landmarker .task bundle (default: the bundled one).")
  var model: String?

  @Option(help: "Which bundled detector finds new faces: short (the bundle's, faces within ~2 m) or full (full range, small faces too).")
  var detectorRange: DetectorRange = .short

  @Option(help: "The most faces to find, at least 1.")
  var numFaces: Int = 1

  @Option(help: "Lowest detector score for a new face, 0...1.")
  var minFaceDetectionConfidence: Float = 0.5

  @Option(help: "Lowest face presence score for a face to be reported, 0...1.")
  var minFacePresenceConfidence: Float = 0.5

  @Option(help: "Lowest face presence score for a face to stay tracked in video, 0...1.")
  var minTrackingConfidence: Float = 0.5

  @Flag(help: "Add the 52 blendshape scores of each face.")
  var blendshapes = false

  @Flag(help: "Add each face's 4×4 facial transformation matrix (row-major).")
  var transformationMatrices = false

  @Option(help: "Landmark smoothing in video: every-face (each tracked face its own filter) or mediapipe (only when --num-faces is 1, as MediaPipe does).")
  var smoothing: SmoothingChoice = .everyFace

  @Option(help: "image, video or live-stream.")
  var runningMode: CLIRunningMode = .image

  @Option(help: "Frame rate for video and live-stream timestamps, round(i·1000/fps) ms (default: the stream's own rate for YUV4MPEG2, else 30).")
  var fps: Double?

  @Option(help: "Threads the models' larger layers are shared over, 1...64 (results are the same for any count).")
  var threads = 1

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  @Option(help: "Write a PNG with the face mesh, contours and irises drawn (a folder when several inputs).")
  var annotate: String?

  func validate() throws {
    guard (1...64).contains(threads) else { throw ValidationError("--threads must be in 1...64") }
    try validateFPS(fps)
    guard numFaces >= 1 else { throw ValidationError("--num-faces must be at least 1") }
    for (name, value) in [
      ("--min-face-detection-confidence", minFaceDetectionConfidence), ("--min-face-presence-confidence", minFacePresenceConfidence),
      ("--min-tracking-confidence", minTrackingConfidence),
    ] where !(0...1).contains(value) {
      throw ValidationError("\(name) must be in 0...1")
    }
  }

  func run() throws {
    let frames = try InputFrames(arguments: images, pathsFrom: pathsFrom, fps: fps)
    let reporter = Reporter(format: output ?? .automatic, total: frames.count)
    var options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: try model ?? BundledWeights.directory() + "/face_landmarker.task", threadCount: threads))
    options.runningMode = runningMode.mode
    options.numFaces = numFaces
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.outputFaceBlendshapes = blendshapes
    options.outputFacialTransformationMatrixes = transformationMatrices
    options.landmarkSmoothing = smoothing.value
    if detectorRange == .full { options.faceDetectorModelAssetPath = try detectorRange.bundledPath() }
    do {
      switch runningMode {
      case .image, .video:
        let landmarker = try FaceLandmarker(options: options)
        while let frame = frames.next() {
          do {
            let image = try frame.image.get()
            let result =
              runningMode == .image
              ? try landmarker.detect(image: image)
              : try landmarker.detect(videoFrame: image, timestampInMilliseconds: frames.timestamp(frame.index))
            try report(result, frame: frame, image: image, frames: frames, reporter: reporter)
          } catch {
            reporter.fail(source: frame.source, error: error)
          }
        }
      case .liveStream:
        let live = LiveStreamOutput<FaceLandmarkerResult>(
          frames: frames, reporter: reporter,
          report: { frame, image, result in try report(result, frame: frame, image: image, frames: frames, reporter: reporter) },
          dropped: { frame, image in
            reporter.emit(
              .object(frameFields(frame, image, timestampMs: frames.timestamp(frame.index)) + [("dropped", .bool(true)), ("faceLandmarks", .array([]))]),
              text: "\(frame.source): dropped (the landmarker was busy)")
          })
        options.liveStreamHandler = { result, timestamp, error in live.deliver(result, timestampMs: timestamp, error: error) }
        let landmarker = try FaceLandmarker(options: options)
        live.run(frames, submit: { try landmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }, waitUntilIdle: landmarker.waitUntilIdle)
      }
    } catch let error as VisionTaskError {
      throw ValidationError("\(error)")
    }
    try reporter.finish()
  }

  private func report(_ result: FaceLandmarkerResult, frame: Frame, image: VisionImage, frames: InputFrames, reporter: Reporter) throws {
    if let annotate {
      var canvas = Canvas(image)
      canvas.draw(result)
      try writeAnnotation(canvas, to: frames.annotationPath(annotate, for: frame))
    }
    var fields = frameFields(frame, image, timestampMs: runningMode == .image ? nil : result.timestampInMilliseconds)
    fields.append(("faceLandmarks", .array(result.faceLandmarks.map { .array($0.map(JSON.landmark)) })))
    if blendshapes { fields.append(("faceBlendshapes", .array(result.faceBlendshapes.map(JSON.blendshapes)))) }
    if transformationMatrices {
      fields.append(("facialTransformationMatrixes", .array(result.facialTransformationMatrixes.map { m in
        .array(m.rows.map { .array($0.map(JSON.float)) })
      })))
    }
    reporter.emit(.object(fields), text: "\(frame.source): " + summary(result))
  }

  /// "1 face" and, per face, its landmark bounding box in pixels and its strongest blendshapes.
  private func summary(_ result: FaceLandmarkerResult) -> String {
    var text = "\(result.faceLandmarks.count) face\(result.faceLandmarks.count == 1 ? "" : "s")"
    for (i, face) in result.faceLandmarks.enumerated() {
      let xs = face.map(\.x), ys = face.map(\.y)
      text += String(format: "\n  face %d: landmarks x %.3f...%.3f y %.3f...%.3f", i + 1, xs.min() ?? 0, xs.max() ?? 0, ys.min() ?? 0, ys.max() ?? 0)
      if i < result.faceBlendshapes.count {
        let top = result.faceBlendshapes[i].categories.filter { $0.index != 0 }.sorted { $0.score > $1.score }.prefix(3)
        text += ", " + top.map { "\($0.categoryName ?? "?") " + String(format: "%.2f", $0.score) }.joined(separator: ", ")
      }
    }
    return text
  }
}

/// `--smoothing`: which faces get landmark smoothing in video and live-stream mode.
enum SmoothingChoice: String, ExpressibleByArgument, CaseIterable {
  case everyFace = "every-face"
  case mediapipe

  var value: LandmarkSmoothing { self == .everyFace ? .everyFace : .mediaPipe }
}

extension JSON {
  /// A landmark as normalized x, y and relative depth z.
  static func landmark(_ l: NormalizedLandmark) -> JSON {
    .object([("x", .float(l.x)), ("y", .float(l.y)), ("z", .float(l.z))])
  }

  /// One face's blendshape categories: index, name, score.
  static func blendshapes(_ c: Classifications) -> JSON {
    .array(c.categories.map { .object([("index", .int($0.index)), ("categoryName", $0.categoryName.map(JSON.string) ?? .null), ("score", .float($0.score))]) })
  }
}
