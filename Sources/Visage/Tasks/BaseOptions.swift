/// Where a task's model comes from: MediaPipe's `BaseOptions`.
public struct BaseOptions: Sendable, Equatable {
  /// A `.tflite` model, a `.task` bundle, or one entry of a bundle written
  /// `bundle.task:entry.tflite`.
  public var modelAssetPath: String

  /// Creates base options for the model at `modelAssetPath`.
  public init(modelAssetPath: String = "") {
    self.modelAssetPath = modelAssetPath
  }
}
