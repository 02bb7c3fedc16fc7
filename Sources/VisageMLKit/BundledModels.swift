import Foundation

/// The models built into this module as package resources, as ML Kit's model is built in:
/// `face_landmarker.task` and `face_detection_full_range.tflite`, the repository's `Weights/`.
public enum BundledModels {
  /// The path of a bundled model file.
  ///
  /// - Throws: `VisageMLKitError.missingBundledModel` when the model is not in the module's
  ///   resource bundle, or the bundle is not beside the program (SwiftPM puts it next to the
  ///   executable it builds; a program copied elsewhere needs it too, or a `modelPath`).
  public static func path(of name: String) throws -> String {
    let url = URL(fileURLWithPath: name)
    guard
      let path = try resources().path(
        forResource: url.deletingPathExtension().lastPathComponent, ofType: url.pathExtension)
    else { throw VisageMLKitError.missingBundledModel(name) }
    return path
  }

  /// The module's resource bundle.
  private static func resources() throws -> Bundle {
    #if canImport(Darwin)
      return Bundle.module
    #else
      // SwiftPM's `Bundle.module` stops the program (fatalError) when the bundle is not beside
      // it, so it is looked for first: `<package>_VisageMLKit.resources` next to the program.
      let folder = Bundle.main.bundleURL
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      guard let name = names.first(where: { $0.hasSuffix("_VisageMLKit.resources") }),
        let bundle = Bundle(path: folder.appendingPathComponent(name).path)
      else { throw VisageMLKitError.missingBundledModel("the resource bundle beside \(folder.path)") }
      return bundle
    #endif
  }
}

/// Why an ML Kit-style call failed, beside the Visage task errors it passes on.
public enum VisageMLKitError: Error, Equatable, CustomStringConvertible {
  /// A built-in model could not be found in the module's resource bundle.
  case missingBundledModel(String)

  /// A one-line explanation: what is missing, and that `modelPath` works around it.
  public var description: String {
    switch self {
    case .missingBundledModel(let name):
      "the built-in model \(name) is missing from VisageMLKit's resources; set FaceDetectorOptions.modelPath"
    }
  }
}
