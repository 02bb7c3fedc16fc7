import Foundation
import Visage
import VisageHosting

/// A task's options as the Python side sends them: a JSON object of the task's base settings
/// and its options by their Python names (`num_faces`, `output_face_blendshapes`), which the
/// option table maps to its own (`TaskOptions`). VisageHosting's `TaskSettings` makes the
/// library's options from them, as it does for the command line and visage-server; an option
/// left out keeps the table's default, and an unknown or refused one is an error naming it.
struct TaskConfiguration {
  enum Kind: String {
    case faceLandmarker = "face_landmarker"
    case faceDetector = "face_detector"

    var task: FaceTaskKind { self == .faceLandmarker ? .landmark : .detect }
  }

  let kind: Kind
  let settings: TaskSettings
  /// The bundled models: the package's `face_landmarker.task` and full-range detector.
  let models: TaskModels

  /// The base settings' keys (not options of the table).
  private static let baseKeys: Set<String> = [
    "task", "running_mode", "model_asset_path", "bundled_model_path", "full_range_model_path", "thread_count",
  ]
  private static let modes: [String: RunningMode] = ["IMAGE": .image, "VIDEO": .video, "LIVE_STREAM": .liveStream]

  var runningMode: RunningMode { settings.runningMode }

  /// Reads the options; throws `CallError` naming an option this task does not take or a value
  /// it refuses, in Python's names.
  static func decode(_ json: String) throws -> TaskConfiguration {
    let object = try JSONDecoder().decode([String: JSONScalar].self, from: Data(json.utf8))
    guard case .text(let name) = object["task"], let kind = Kind(rawValue: name) else {
      throw CallError("unknown task \(object["task"]?.spelled ?? "(none)")")
    }
    var settings = TaskSettings(kind.task)
    settings.runningMode = try modes[text(object, "running_mode")] ?? .image
    if let model = object["model_asset_path"] {
      guard case .text(let path) = model else { throw CallError("model_asset_path must be a string") }
      try MissingFile.check(path)
      settings.model = path
    }
    if let threads = object["thread_count"] {
      guard case .whole(let count) = threads else { throw CallError("thread_count must be a whole number") }
      settings.threadCount = count
    }
    let table = TaskOptions.table(for: kind.task)
    for (name, value) in object where !baseKeys.contains(name) {
      guard let option = table.first(where: { $0.pythonName == name }) else {
        throw CallError("unknown option \(name) for the \(kind.rawValue.replacingOccurrences(of: "_", with: " "))")
      }
      // A choice's words are Python's (`every_face`); anything else goes as written, for the
      // table to take or refuse (a string for a number is refused, as a wrong type should be).
      var spelled = value.spelled
      if case .choice = option.kind, case .text(let word) = value {
        spelled = word.replacingOccurrences(of: "_", with: "-")
      }
      do { try settings.set(option.name, spelled) } catch { throw CallError(error.message(in: .python)) }
    }
    let models = TaskModels(
      bundle: try text(object, "bundled_model_path"), fullRange: try text(object, "full_range_model_path"))
    return TaskConfiguration(kind: kind, settings: settings, models: models)
  }

  /// The landmarker's options, in live-stream mode with `handler`.
  func landmarkerOptions(
    handler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)?
  ) throws -> FaceLandmarkerOptions {
    try inPython { () throws(OptionError) in try settings.landmarkerOptions(models: models, handler: handler) }
  }

  /// The detector's options, in live-stream mode with `handler`.
  func detectorOptions(
    handler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)?
  ) throws -> FaceDetectorOptions {
    try inPython { () throws(OptionError) in try settings.detectorOptions(models: models, handler: handler) }
  }

  /// Runs `body`; an option it refuses is a `CallError` (Python's ValueError) in Python's names.
  private func inPython<T>(_ body: () throws(OptionError) -> T) throws -> T {
    do { return try body() } catch { throw CallError(error.message(in: .python)) }
  }

  private static func text(_ object: [String: JSONScalar], _ key: String) throws -> String {
    guard case .text(let value) = object[key] else { throw CallError("\(key) must be a string") }
    return value
  }
}

/// One value of the options' JSON object: a flag, a number or a word.
private enum JSONScalar: Decodable {
  case flag(Bool)
  case whole(Int)
  case number(Double)
  case text(String)

  init(from decoder: Decoder) throws {
    let value = try decoder.singleValueContainer()
    if let flag = try? value.decode(Bool.self) {
      self = .flag(flag)
    } else if let whole = try? value.decode(Int.self) {
      self = .whole(whole)
    } else if let number = try? value.decode(Double.self) {
      self = .number(number)
    } else {
      self = .text(try value.decode(String.self))
    }
  }

  /// As the option table reads values: `true`, `3`, `0.25`.
  var spelled: String {
    switch self {
    case .flag(let flag): "\(flag)"
    case .whole(let whole): "\(whole)"
    case .number(let number): "\(number)"
    case .text(let text): text
    }
  }
}
