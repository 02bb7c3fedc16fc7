import VisageKernels
import VisageRuntime

/// Where a task's model comes from: MediaPipe's `BaseOptions`.
///
/// A class, as MediaPipe's is, so that `options.baseOptions.modelAssetPath = path` works on
/// options held in a `let`. A task copies its options when it is created.
public final class BaseOptions {
  /// A `.tflite` model, a `.task` bundle, or one entry of a bundle written
  /// `bundle.task:entry.tflite`.
  ///
  /// Implicitly unwrapped so that the guides' `options.baseOptions.modelAssetPath =
  /// Bundle.main.path(forResource:ofType:)` compiles as written; assigning nil stores "" (no
  /// model), which a task refuses when it is created. Reading it never gives nil.
  public var modelAssetPath: String! {
    get { path }
    set { path = newValue ?? "" }
  }
  /// The path as stored: "" when none was given.
  private(set) var path: String
  /// Visage: threads the models' larger layers are shared over (the calling thread and
  /// `threadCount - 1` workers, one set per task object); an all-scales search also shares
  /// out its tiles and looks, one detector pair per thread. 1, the default, runs everything
  /// on the calling thread. Results are the same for any count.
  public var threadCount: Int
  /// Visage: the most model runs one wider search (all scales, any rotation) may plan for
  /// its passes over the image (whole-image runs and tiles, at every turn); an image that
  /// needs more is refused with `VisionTaskError.invalidImage` before any run. A sixth of it
  /// (`maximumFacesWorkedOn`) bounds the work per face found: at most that many of a wide
  /// search's candidates, the best first, are looked at (two to four runs each), and a call
  /// with more detections to check for presence, or faces to landmark, than that is refused.
  /// A run takes about a millisecond on one core, so the default, 30,000, lets a call take
  /// about 30 s; a server answering strangers sets less (visage-server: `--max-search-runs`).
  /// At least 6.
  public var maximumSearchRuns: Int

  /// The default `maximumSearchRuns`: a 4000×3000 photo searched at every turn plans 8,204.
  public static let defaultMaximumSearchRuns = 30_000

  /// The most faces or candidates one call works on (a sixth of `maximumSearchRuns`: each
  /// costs two to four model runs, so their share stays within two thirds of it).
  static func maximumFacesWorkedOn(searchRuns: Int) -> Int { searchRuns / 6 }

  /// Creates base options for the model at `modelAssetPath`.
  public init(
    modelAssetPath: String = "", threadCount: Int = 1, maximumSearchRuns: Int = BaseOptions.defaultMaximumSearchRuns
  ) {
    self.path = modelAssetPath
    self.threadCount = threadCount
    self.maximumSearchRuns = maximumSearchRuns
  }

  /// An independent copy: changing it leaves these options as they are.
  public func copy() -> BaseOptions {
    BaseOptions(modelAssetPath: path, threadCount: threadCount, maximumSearchRuns: maximumSearchRuns)
  }

  /// Throws `VisionTaskError.invalidOption` for a thread count outside 1...64 or a
  /// `maximumSearchRuns` under 6. The model path is not looked at: a task reads it when it
  /// is created.
  public func validate() throws(VisionTaskError) {
    guard threadCount >= 1, threadCount <= 64 else {
      throw .invalidOption("invalid `threadCount` option: must be in 1...64, got \(threadCount)")
    }
    guard maximumSearchRuns >= 6 else {
      throw .invalidOption("invalid `maximumSearchRuns` option: must be at least 6, got \(maximumSearchRuns)")
    }
  }

  /// Threads for the task's interpreters: nil for one thread.
  func threadPool() throws(VisionTaskError) -> ThreadPool? {
    try validate()
    return threadCount > 1 ? ThreadPool(threadCount: threadCount) : nil
  }
}
