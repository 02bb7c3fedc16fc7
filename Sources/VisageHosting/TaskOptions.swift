import Visage

/// The face tasks whose options the command line and visage-server share: `visage detect`,
/// `landmark` and `analyze`, and the routes `/v1/detect`, `/v1/landmark` and `/v1/analyze`.
public enum FaceTaskKind: String, CaseIterable, Sendable {
  case detect, landmark, analyze
}

/// One option of a face task, as the command line takes it (`--num-faces 2`) and
/// visage-server's query does (`?num-faces=2`). Each is written once, in `TaskOptions`: the
/// command line's help and defaults and the server's checks come from it, and tests hold the
/// command line's flags and `Server/openapi.yaml` to it.
public struct TaskOption: Sendable, Equatable {
  /// What values an option takes.
  public enum Kind: Sendable, Equatable {
    /// True or false; false unless given.
    case flag
    /// A number in 0...1.
    case fraction
    /// An angle in degrees, strictly between 0 and 180.
    case degrees
    /// A whole number in the range.
    case count(ClosedRange<Int>)
    /// One of these words.
    case choice([String])
  }

  /// The long option's name, without its dashes: also the query parameter's.
  public let name: String
  /// The values it takes.
  public let kind: Kind
  /// The default in canonical form (`0.5`, `short`); nil for a flag, and for an option that
  /// is off unless given.
  public let defaultValue: String?
  /// What it does, for people: the command line's help and the API document's description.
  public let help: String
  /// Whether only a stream gives it meaning (`/v1/live`; the command line's video and
  /// live-stream modes).
  public let streamOnly: Bool
  /// The Python package's name for it (`num_faces`); nil when Python does not take it.
  public let pythonName: String?
  /// The library's option the library's own errors name (`numFaces`), reworded into the
  /// user's names (`OptionLanguage`); nil when it sets none by a name of its own.
  public let property: String?

  init(
    _ name: String, _ kind: Kind, _ defaultValue: String?, streamOnly: Bool = false, python: String?,
    property: String?, _ help: String
  ) {
    (self.name, self.kind, self.defaultValue, self.help, self.streamOnly) = (name, kind, defaultValue, help, streamOnly)
    (pythonName, self.property) = (python, property)
  }

  /// An option with no default: a flag, or one that is off unless given.
  init(_ name: String, _ kind: Kind, streamOnly: Bool = false, python: String?, property: String?, _ help: String) {
    self.init(name, kind, nil, streamOnly: streamOnly, python: python, property: property, help)
  }

  /// A word of a choice as the option's language writes it: Python's use underscores
  /// (`every_face`), the command line's and the query's dashes.
  public func word(_ word: String, in language: OptionLanguage) -> String {
    language == .python ? word.replacingOccurrences(of: "-", with: "_") : word
  }

  /// The value in canonical form (`true`, `0.4`), or nil when the option does not take it.
  public func canonical(_ value: String) -> String? {
    switch kind {
    case .flag:
      // A bare `?blendshapes` is true, as the flag alone is on the command line.
      switch value.lowercased() {
      case "", "true": return "true"
      case "false": return "false"
      default: return nil
      }
    case .fraction:
      // Checked as a decimal before it becomes a Float, which would round 1.0000000000000002
      // down to 1.
      guard let number = Self.decimal(value), (0...1).contains(number) else { return nil }
      return "\(Float(number))"
    case .degrees:
      guard let number = Self.decimal(value), number > 0, number < 180, Float(number) > 0, Float(number) < 180 else {
        return nil
      }
      return "\(Float(number))"
    case .count(let range):
      guard let number = Int(value), range.contains(number) else { return nil }
      return "\(number)"
    case .choice(let choices):
      return choices.contains(value) ? value : nil
    }
  }

  /// What the option takes, in words: "takes a number in 0...1".
  public var expectation: String { expectation(in: .commandLine) }

  /// What the option takes, in the words of a front end (Python's `True`, `every_face`).
  public func expectation(in language: OptionLanguage) -> String {
    switch kind {
    case .flag: language == .python ? "takes True or False" : "takes true or false"
    case .fraction: "takes a number in 0...1"
    case .degrees: "takes degrees between 0 and 180 (exclusive)"
    case .count(let range): "takes a whole number in \(range.lowerBound)...\(range.upperBound)"
    case .choice(let choices): "takes \(choices.map { word($0, in: language) }.joined(separator: ", "))"
    }
  }

  /// A value the option takes other than its default, in canonical form: what tests give each
  /// option in turn to see that it reaches the task.
  public var alternativeValue: String {
    let value: String
    switch kind {
    case .flag: value = "true"
    case .fraction: value = defaultValue == "0.7" ? "0.2" : "0.7"
    case .degrees: value = defaultValue == "40.0" ? "50" : "40"
    case .count(let range):
      value = defaultValue == "\(range.lowerBound)" ? "\(range.lowerBound + 1)" : "\(range.lowerBound)"
    case .choice(let words): value = words.first { $0 != defaultValue } ?? ""
    }
    return canonical(value) ?? value
  }

  /// A plain finite decimal (no hexadecimal, no leading +).
  private static func decimal(_ value: String) -> Double? {
    guard let number = Double(value), number.isFinite, !value.hasPrefix("+"),
      value.allSatisfy({ $0.isASCII && ($0.isNumber || ".eE+-".contains($0)) })
    else { return nil }
    return number
  }
}

/// Every face task's options: the one table (docs/decisions.md, "One option table"). Defaults
/// are read from the library's option types, so that none is written twice.
public enum TaskOptions {
  /// The most faces a request may ask for: bounds a response's size.
  public static let faceCounts = 1...1000

  /// The task's options, in the command line's order.
  public static func table(for task: FaceTaskKind) -> [TaskOption] {
    switch task {
    case .detect: detect
    case .landmark: landmark
    case .analyze: analyze
    }
  }

  /// The task's option of this name; a name the table does not hold is a programming error.
  public static func option(_ name: String, of task: FaceTaskKind) -> TaskOption {
    guard let option = table(for: task).first(where: { $0.name == name }) else {
      preconditionFailure("no option \(name) for \(task)")
    }
    return option
  }

  /// The command line's options that visage-server does not take, which it refuses by name:
  /// files, threads, output and running modes (the server decides them), crops and regions,
  /// the smoothing filter's settings, and the files' decoder.
  public static let commandLineOnly: Set<String> = [
    "model", "threads", "running-mode", "fps", "output", "annotate", "paths-from", "input-format", "profile-search",
    "crops", "crop-size", "crop-margin", "region", "smoothing-min-cutoff", "smoothing-beta", "decoder",
  ]

  private static let ranges = TaskOption.Kind.choice(["short", "full", "all"])
  // The library's defaults, read when the tables are made.
  private static var detector: FaceDetectorOptions { FaceDetectorOptions() }
  private static var landmarker: FaceLandmarkerOptions { FaceLandmarkerOptions() }
  private static var analyzer: FaceAnalyzerOptions { FaceAnalyzerOptions() }

  private static let detect: [TaskOption] = [
    TaskOption(
      "range", ranges, "short", python: "detector_range", property: nil,
      "short (128×128, faces within ~2 m), full (192×192, faces up to ~5 m) or all (both, also on tiles: every face from ~20 px up; slower)."
    ),
    anyRotation,
    ignoreExif,
    TaskOption(
      "min-detection-confidence", .fraction, "\(detector.minDetectionConfidence)", python: "min_detection_confidence",
      property: "minDetectionConfidence", "Lowest score reported, 0...1."),
    TaskOption(
      "min-suppression-threshold", .fraction, "\(detector.minSuppressionThreshold)",
      python: "min_suppression_threshold", property: "minSuppressionThreshold",
      "IoU above which overlapping boxes merge, 0...1."),
    TaskOption(
      "min-face-presence-confidence", .fraction, python: "min_face_presence_confidence",
      property: "minFacePresenceConfidence",
      "Check each face with the face landmark model and drop it when its face presence is below this, 0...1 (off by default; about one landmark run per face)."
    ),
    trackingIDs,
  ]

  private static let landmark: [TaskOption] = [
    TaskOption(
      "detector-range", ranges, "short", python: "detector_range", property: nil,
      "Which bundled detector finds new faces: short (the bundle's, faces within ~2 m), full (full range, small faces too) or all (both, also on tiles; slower)."
    ),
    anyRotation,
    ignoreExif,
    TaskOption(
      "num-faces", .count(faceCounts), "\(landmarker.numFaces)", python: "num_faces", property: "numFaces",
      "The most faces to find, at least 1."),
    TaskOption(
      "min-face-detection-confidence", .fraction, "\(landmarker.minFaceDetectionConfidence)",
      python: "min_face_detection_confidence", property: "minFaceDetectionConfidence",
      "Lowest detector score for a new face, 0...1."),
    TaskOption(
      "min-face-presence-confidence", .fraction, "\(landmarker.minFacePresenceConfidence)",
      python: "min_face_presence_confidence", property: "minFacePresenceConfidence",
      "Lowest face presence score for a face to be reported, 0...1."),
    TaskOption(
      "min-tracking-confidence", .fraction, "\(landmarker.minTrackingConfidence)", python: "min_tracking_confidence",
      property: "minTrackingConfidence", "Lowest face presence score for a face to stay tracked in video, 0...1."),
    TaskOption(
      "blendshapes", .flag, python: "output_face_blendshapes", property: "outputFaceBlendshapes",
      "Add the 52 blendshape scores of each face."),
    TaskOption(
      "transformation-matrices", .flag, python: "output_facial_transformation_matrixes",
      property: "outputFacialTransformationMatrixes", "Add each face's 4×4 facial transformation matrix (row-major)."),
    TaskOption(
      "head-pose", .flag, python: "output_head_poses", property: "outputFaceHeadPoses",
      "Add each face's head pose: ML Kit's Euler angles in degrees, as analyze gives them."),
    TaskOption(
      "metric-mesh", .flag, python: "output_metric_landmarks", property: "outputFaceMetricLandmarks",
      "Add each face's metric mesh: MediaPipe's FaceGeometry.mesh, 468 points in centimetres."),
    TaskOption(
      "iris-distance", .flag, python: "output_iris_distances", property: "outputFaceIrisDistances",
      "Add each eye's distance from the camera in millimetres, from its iris's size."),
    trackingIDs,
    TaskOption(
      "scores", .flag, python: "output_scores", property: "outputFaceScores",
      "Add the detection score and face presence that admitted each face."),
    TaskOption(
      "camera-fov", .degrees, "\(landmarker.cameraVerticalFieldOfView)", python: "camera_vertical_field_of_view",
      property: "cameraVerticalFieldOfView",
      "The camera's vertical field of view in degrees, which matrices, poses, meshes and distances assume."),
    // Python's images carry no Exif: `create_from_file` applies the orientation and keeps
    // nothing else of it.
    TaskOption(
      "camera-from-exif", .flag, python: nil, property: "usesImageFocalLength",
      "Take the camera's focal length from each image's Exif (FocalLengthIn35mmFilm) when it has one."),
    TaskOption(
      "smoothing", .choice(["every-face", "mediapipe", "off"]), smoothingName(landmarker.landmarkSmoothing),
      python: "landmark_smoothing", property: "landmarkSmoothing",
      "Landmark smoothing in video: every-face (each tracked face its own filter), mediapipe (only when --num-faces is 1, as MediaPipe does) or off."
    ),
  ]

  // ML Kit's analysis has no Python API (ML Kit has none): no Python names.
  private static let analyze: [TaskOption] = [
    TaskOption(
      "performance", .choice(["fast", "accurate"]), analyzer.performanceMode.rawValue, python: nil,
      property: "performanceMode",
      "fast (short-range detector) or accurate (every scale, as detect --range all: small, distant and close-up faces)."
    ),
    anyRotation,
    ignoreExif,
    TaskOption("landmarks", .flag, python: nil, property: "landmarkMode", "Report the ten landmarks of each face."),
    TaskOption("contours", .flag, python: nil, property: "contourMode", "Report the fifteen contours of each face."),
    // The analyzer's classification reads the bundle's blendshapes, which its errors name.
    TaskOption(
      "classification", .flag, python: nil, property: "outputFaceBlendshapes",
      "Report smiling and eye-open probabilities."),
    TaskOption(
      "min-face-size", .fraction, "\(analyzer.minFaceSize)", python: nil, property: "minFaceSize",
      "Narrowest face reported, as a fraction of the image width, 0...1."),
    TaskOption(
      "tracking", .flag, streamOnly: true, python: nil, property: "isTrackingEnabled",
      "Give each face a tracking ID that stays the same while it is in view."),
    TaskOption(
      "max-faces", .count(faceCounts), "\(analyzer.maximumFaceCount)", python: nil, property: "maximumFaceCount",
      "The most faces analyzed per image."),
  ]

  // The options several tasks take in the same words.
  private static let anyRotation = TaskOption(
    "any-rotation", .flag, python: "search_any_rotation", property: "searchesAnyRotation",
    "Also look for faces in the image turned by 90°, 180° and 270° (sideways and upside-down faces; ~4× the detector's time)."
  )
  // Python's images are decoded by `create_from_file`, which applies the orientation as
  // MediaPipe's does.
  private static let ignoreExif = TaskOption(
    "ignore-exif", .flag, python: nil, property: nil,
    "Use the stored pixels as they are, ignoring the Exif orientation of JPEG and PNG files (by default they are turned upright, as a viewer shows them)."
  )
  private static let trackingIDs = TaskOption(
    "tracking", .flag, streamOnly: true, python: "track_faces", property: "isTrackingEnabled",
    "Add each face's tracking ID, kept while the face stays in view from input to input.")

  /// The table's word for a smoothing.
  public static func smoothingName(_ smoothing: LandmarkSmoothing) -> String {
    switch smoothing {
    case .everyFace: "every-face"
    case .mediaPipe: "mediapipe"
    case .off: "off"
    }
  }

  /// The smoothing the table's word names (`smoothingName`'s inverse); nil for another word.
  public static func smoothing(named name: String) -> LandmarkSmoothing? {
    [LandmarkSmoothing.everyFace, .mediaPipe, .off].first { smoothingName($0) == name }
  }
}
