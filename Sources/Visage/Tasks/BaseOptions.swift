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

  /// Creates base options for the model at `modelAssetPath`.
  public init(modelAssetPath: String = "", threadCount: Int = 1) {
    self.path = modelAssetPath
    self.threadCount = threadCount
  }

  /// An independent copy: changing it leaves these options as they are.
  public func copy() -> BaseOptions { BaseOptions(modelAssetPath: path, threadCount: threadCount) }

  /// Throws `VisionTaskError.invalidOption` for a thread count outside 1...64. The model path
  /// is not looked at: a task reads it when it is created.
  public func validate() throws(VisionTaskError) {
    guard threadCount >= 1, threadCount <= 64 else {
      throw .invalidOption("invalid `threadCount` option: must be in 1...64, got \(threadCount)")
    }
  }

  /// Threads for the task's interpreters: nil for one thread.
  func threadPool() throws(VisionTaskError) -> ThreadPool? {
    try validate()
    return threadCount > 1 ? ThreadPool(threadCount: threadCount) : nil
  }
}
