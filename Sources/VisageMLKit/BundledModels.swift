import Foundation

/// The models built into this module as package resources, as ML Kit's model is built in:
/// `face_landmarker.task` and `face_detection_full_range.tflite`, the repository's `Weights/`.
public enum BundledModels {
  /// The path of a bundled model file.
  ///
  /// - Throws: `VisageMLKitError.missingBundledModel` when the resource bundle is not beside
  ///   the program (SwiftPM puts it next to the executable it builds).
  public static func path(of name: String) throws -> String {
    let url = URL(fileURLWithPath: name)
    guard
      let path = Bundle.module.path(
        forResource: url.deletingPathExtension().lastPathComponent, ofType: url.pathExtension)
    else { throw VisageMLKitError.missingBundledModel(name) }
    return path
  }
}

/// Why an ML Kit-style call failed, beside the Visage task errors it passes on.
public enum VisageMLKitError: Error, Equatable, CustomStringConvertible {
  /// A built-in model could not be found in the module's resource bundle.
  case missingBundledModel(String)

  public var description: String {
    switch self {
    case .missingBundledModel(let name):
      "the built-in model \(name) is missing from VisageMLKit's resources; set FaceDetectorOptions.modelPath"
    }
  }
}
