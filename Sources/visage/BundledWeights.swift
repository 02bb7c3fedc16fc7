import ArgumentParser
import Foundation

/// Finds the models that ship in the repository's `Weights/` folder.
enum BundledWeights {
  /// The folder holding `face_landmarker.task`: `$VISAGE_WEIGHTS`, `./Weights`, or
  /// `Weights/` beside the build folder the executable runs from.
  static func directory() throws -> String {
    var candidates: [String] = []
    if let env = ProcessInfo.processInfo.environment["VISAGE_WEIGHTS"] { candidates.append(env) }
    candidates.append(FileManager.default.currentDirectoryPath + "/Weights")
    // .build/<triple>/<configuration>/visage → the package root is three levels up.
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    for _ in 0..<4 {
      url.deleteLastPathComponent()
      candidates.append(url.path + "/Weights")
    }
    for dir in candidates where FileManager.default.fileExists(atPath: dir + "/face_landmarker.task") {
      return dir
    }
    throw SetupError("cannot find the bundled Weights/ folder; run from the repository root or set VISAGE_WEIGHTS")
  }

  /// The bundled `face_landmarker.task`.
  static func taskBundle() throws -> String { try directory() + "/face_landmarker.task" }

  /// The model reference for one of the four bundled models, by its benchmark name.
  static func model(named name: String) throws -> String {
    let dir = try directory()
    switch name {
    case "face_detection_full_range": return dir + "/face_detection_full_range.tflite"
    case "face_detector", "face_landmarks_detector", "face_blendshapes":
      return try taskBundle() + ":\(name).tflite"
    default: throw ValidationError("unknown model '\(name)'")
    }
  }

  /// The benchmark's image: `Weights/bench/astronaut.png` (the same file as the tests'
  /// `Tests/Fixtures/images/astronaut.png`, which the command line never reads).
  static func sampleImage() throws -> String {
    try directory() + "/bench/astronaut.png"
  }

  /// The benchmark's video: `Weights/bench/pan`, 320×240 JPEG frames (the same files as
  /// `Tests/Fixtures/landmarker/frames/pan`).
  static func panFrames() throws -> String {
    try directory() + "/bench/pan"
  }

  /// The four bundled models, in benchmark order.
  static let modelNames = [
    "face_detector", "face_landmarks_detector", "face_blendshapes", "face_detection_full_range",
  ]
}
