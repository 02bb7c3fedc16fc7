import VisageKernels
import VisageRuntime

/// Where a task's model comes from: MediaPipe's `BaseOptions`.
public struct BaseOptions: Sendable, Equatable {
  /// A `.tflite` model, a `.task` bundle, or one entry of a bundle written
  /// `bundle.task:entry.tflite`.
  public var modelAssetPath: String
  /// Visage: threads the models' larger layers are shared over (the calling thread and
  /// `threadCount - 1` workers, one set per task object); an all-scales search also shares
  /// out its tiles and looks, one detector pair per thread. 1, the default, runs everything
  /// on the calling thread. Results are the same for any count.
  public var threadCount: Int

  /// Creates base options for the model at `modelAssetPath`.
  public init(modelAssetPath: String = "", threadCount: Int = 1) {
    self.modelAssetPath = modelAssetPath
    self.threadCount = threadCount
  }

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
