import Foundation

/// Finds the models that ship in the repository's `Weights/` folder: for the command line and
/// visage-server, which both run from a clone of the repository.
///
/// VisageMLKit finds the same files through its resource bundle instead, as an app needs;
/// docs/decisions.md says why there are two ways.
public enum BundledWeights {
  /// The folder holding `face_landmarker.task`: `$VISAGE_WEIGHTS`, `./Weights`, or
  /// `Weights/` beside the build folder the executable runs from (the package's, or the
  /// `Server/` package's inside it).
  public static func directory() throws(BundledWeightsError) -> String {
    var candidates: [String] = []
    if let env = ProcessInfo.processInfo.environment["VISAGE_WEIGHTS"] { candidates.append(env) }
    candidates.append(FileManager.default.currentDirectoryPath + "/Weights")
    // .build/<triple>/<configuration>/visage → the package root is three levels up, and
    // Server/.build/... four. Inside a host process (the Python wheel's `visage`) the
    // runtime may have no arguments at all.
    if let executable = CommandLine.arguments.first {
      var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
      for _ in 0..<5 {
        url.deleteLastPathComponent()
        candidates.append(url.path + "/Weights")
      }
    }
    for dir in candidates where FileManager.default.fileExists(atPath: dir + "/face_landmarker.task") {
      return dir
    }
    throw BundledWeightsError(
      "cannot find the bundled Weights/ folder; run from the repository root or set VISAGE_WEIGHTS")
  }

  /// The bundled `face_landmarker.task`.
  public static func taskBundle() throws(BundledWeightsError) -> String { try directory() + "/face_landmarker.task" }

  /// The model reference for one of the four bundled models, by its benchmark name.
  public static func model(named name: String) throws(BundledWeightsError) -> String {
    let dir = try directory()
    switch name {
    case "face_detection_full_range": return dir + "/face_detection_full_range.tflite"
    case "face_detector", "face_landmarks_detector", "face_blendshapes":
      return try taskBundle() + ":\(name).tflite"
    default: throw BundledWeightsError("unknown model '\(name)'")
    }
  }

  /// The benchmark's image: `Weights/bench/astronaut.png` (the same file as the tests'
  /// `Tests/Fixtures/images/astronaut.png`, which the command line never reads).
  public static func sampleImage() throws(BundledWeightsError) -> String {
    try directory() + "/bench/astronaut.png"
  }

  /// The benchmark's video: `Weights/bench/pan`, 320×240 JPEG frames (the same files as
  /// `Tests/Fixtures/landmarker/frames/pan`).
  public static func panFrames() throws(BundledWeightsError) -> String {
    try directory() + "/bench/pan"
  }

  /// The four bundled models, in benchmark order.
  public static let modelNames = [
    "face_detector", "face_landmarks_detector", "face_blendshapes", "face_detection_full_range",
  ]
}

/// The bundled `Weights/` folder, or a model in it, could not be found.
public struct BundledWeightsError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
