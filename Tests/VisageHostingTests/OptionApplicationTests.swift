import Testing
import Visage
import VisageHosting

/// Every option of the one table (`TaskOptions`) reaches the library's options that
/// `TaskSettings` makes, which the command line, visage-server and Python all use: given a
/// value other than its default, the options made differ from those made with none. An option
/// added to the table and forgotten in `TaskSettings` would be accepted, then ignored; this
/// fails instead. (Each front end's own test holds it to fill every option: `CLIOptionTests`,
/// the server's `OptionApplicationTests`, Python's `test_every_option_equals_cli`.)
@Suite struct OptionApplicationTests {
  static let models = TaskModels(bundle: "bundle.task", fullRange: "full-range.tflite")

  /// Options the image decoding reads, not the task.
  static let decodingOptions: Set<String> = ["ignore-exif"]

  /// The stored properties of `value`, and of the classes it holds, as text: what differs
  /// when any option the task reads differs.
  static func description(_ value: Any, depth: Int = 0) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .class || mirror.displayStyle == .struct, depth < 3, !mirror.children.isEmpty else {
      return String(describing: value)
    }
    let fields = mirror.children.map { "\($0.label ?? "_")=\(description($0.value, depth: depth + 1))" }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// The library's options made from `settings`, as text.
  static func built(_ settings: TaskSettings) throws -> String {
    switch settings.task {
    case .detect: description(try settings.detectorOptions(models: models))
    case .landmark: description(try settings.landmarkerOptions(models: models))
    case .analyze: description(try settings.analyzerOptions(models: models))
    }
  }

  @Test(arguments: FaceTaskKind.allCases) func everyOptionReachesTheTask(_ kind: FaceTaskKind) throws {
    let plain = try Self.built(TaskSettings(kind))
    let table = TaskOptions.table(for: kind).filter { !Self.decodingOptions.contains($0.name) }
    #expect(table.count >= 5)
    for option in table {
      var settings = TaskSettings(kind)
      try settings.set(option.name, option.alternativeValue)
      #expect(try Self.built(settings) != plain, "\(kind): `\(option.name)=\(option.alternativeValue)` changes nothing")
    }
  }

  @Test func theBaseSettingsReachTheTask() throws {
    var settings = TaskSettings(.landmark)
    (settings.model, settings.threadCount, settings.runningMode) = ("mine.task", 3, .video)
    settings.landmarkFilter.beta = 7
    let options = try settings.landmarkerOptions(models: Self.models)
    #expect(options.baseOptions.modelAssetPath == "mine.task" && options.baseOptions.threadCount == 3)
    #expect(options.runningMode == .video && options.landmarkFilter.beta == 7)
  }

  /// Which model each range runs, and where the presence check finds its landmark model.
  @Test func theRangesChooseTheModels() throws {
    func detector(_ range: String, model: String? = nil, presence: Bool = false) throws -> FaceDetectorOptions {
      var settings = TaskSettings(.detect)
      settings.model = model
      try settings.set("range", range)
      if presence { try settings.set("min-face-presence-confidence", "0.5") }
      return try settings.detectorOptions(models: Self.models)
    }
    #expect(try detector("short").baseOptions.modelAssetPath == "bundle.task")
    #expect(try detector("full").baseOptions.modelAssetPath == "full-range.tflite")
    let all = try detector("all")
    #expect(all.searchesAllScales && all.fullRangeDetectorModelAssetPath == "full-range.tflite")
    // The full-range file has no landmark model: the check reads the bundle's.
    #expect(try detector("full", presence: true).landmarksModelAssetPath == "bundle.task")
    #expect(try detector("full", model: "mine.task", presence: true).landmarksModelAssetPath == "mine.task")
    #expect(try detector("short", model: "short.tflite", presence: true).landmarksModelAssetPath == "bundle.task")
    #expect(try detector("short", presence: true).landmarksModelAssetPath == nil)
    // A detector file and a range that would replace it: refused, naming both, in each front end's words.
    #expect(Self.refusal { _ = try detector("full", model: "short.tflite") } != nil)
    let error = try #require(Self.refusal { _ = try detector("all", model: "short.tflite") })
    #expect(error.message(in: .commandLine) == "give either --model or --range all, not both: the model is a detector")
    #expect(error.message(in: .python).contains("model_asset_path or detector_range all"))
  }

  /// The error `body` throws, or nil.
  static func refusal(_ body: () throws -> Void) -> OptionError? {
    do { try body() } catch { return error as? OptionError }
    return nil
  }

  /// An error names the option as each front end spells it.
  @Test func errorsNameTheOptionAsTheUserWroteIt() throws {
    var settings = TaskSettings(.landmark)
    let count = try #require(Self.refusal { try settings.set("num-faces", "0") })
    #expect(count.message(in: .commandLine) == "option --num-faces takes a whole number in 1...1000, got '0'")
    #expect(count.message(in: .query) == "option `num-faces` takes a whole number in 1...1000, got '0'")
    #expect(count.message(in: .python) == "option num_faces takes a whole number in 1...1000, got '0'")
    let word = try #require(Self.refusal { try settings.set("smoothing", "kalman") })
    #expect(word.message(in: .python) == "option landmark_smoothing takes every_face, mediapipe, off, got 'kalman'")
    // The library's own refusal, reworded.
    settings.threadCount = 99
    let threads = try #require(Self.refusal { _ = try settings.landmarkerOptions(models: Self.models) })
    #expect(threads.message(in: .python).contains("thread_count"), "\(threads.message(in: .python))")
    #expect(threads.message(in: .commandLine).contains("--threads"), "\(threads.message(in: .commandLine))")
  }

  /// Every option of every task has its Python name unless the table says why not, and no two
  /// share one.
  @Test(arguments: FaceTaskKind.allCases) func pythonNamesAreDistinct(_ kind: FaceTaskKind) {
    let names = TaskOptions.table(for: kind).compactMap(\.pythonName)
    #expect(Set(names).count == names.count)
  }
}
